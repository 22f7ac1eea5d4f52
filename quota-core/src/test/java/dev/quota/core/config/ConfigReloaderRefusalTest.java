package dev.quota.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.quota.core.QuotaListener;
import dev.quota.core.QuotaService;
import dev.quota.core.store.InMemoryStore;
import dev.quota.testkit.Await;
import dev.quota.testkit.MutableClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a careless or hostile hand can put at the watched path, and that hot reload survives it. */
class ConfigReloaderRefusalTest {

    private static final long THREE_GB = 3L << 30;

    @TempDir
    Path dir;

    private final MutableClock clock = MutableClock.at("2026-11-29T10:00:00Z");
    private final List<ConfigReloader.Result> results = new CopyOnWriteArrayList<>();
    private Path file;
    private QuotaService service;
    private long initialVersion;

    private static String config(int capacity) {
        return """
                plans:
                  anonymous:
                    limits:
                      - {name: burst, capacity: 5, period: 1m}
                  free:
                    limits:
                      - {name: burst, capacity: %d, tokens: 1, period: 1h}
                """.formatted(capacity);
    }

    @BeforeEach
    void start() throws IOException {
        file = dir.resolve("plans.yaml");
        Files.writeString(file, config(100));
        service = QuotaService.builder().store(InMemoryStore.builder().clock(clock).build())
                .config(QuotaConfigLoader.load(file)).clock(clock).build();
        initialVersion = service.config().version();
    }

    @AfterEach
    void stop() {
        service.close();
    }

    private long freeBurst() {
        return service.config().plans().get("free").limits().get(0).capacity();
    }

    /** A reloader that only checks when the test calls {@link ConfigReloader#poll()}. */
    private ConfigReloader manual() {
        return ConfigReloader.watch(file, service, Duration.ofHours(1), results::add);
    }

    /** What broke: a 3 GB file was read whole; the OutOfMemoryError cancelled the scheduled check for good. */
    @Test
    void threeGigabyteFile_doesNotStopHotReload() throws IOException {
        ConfigReloader reloader = ConfigReloader.watch(file, service, Duration.ofMillis(20), results::add);
        try {
            sparse(THREE_GB);
            awaitTrue(() -> !results.isEmpty(), "the oversized file was refused");

            Files.writeString(file, config(300));

            // the listener hears of a reload after the service has it: wait for the listener
            awaitTrue(() -> results.get(results.size() - 1).applied(), "a good edit after the oversized file applied");
        } finally {
            reloader.close();
        }
        assertThat(freeBurst()).isEqualTo(300);
        assertThat(results.get(0).applied()).isFalse();
        assertThat(results.get(0).errors()).containsExactly(
                "the config is 3221225472 bytes; the limit is 1000000 (1 MB), so it was not read");
        assertThat(results.get(results.size() - 1).applied()).isTrue();
    }

    @Test
    void oversizedFile_isRefusedBeforeItIsOpened_andLoggedOnceWithPathAndReason() throws IOException {
        try (ConfigReloader reloader = manual()) {
            sparse(THREE_GB);
            AtomicBoolean opened = new AtomicBoolean();
            reloader.beforeOpen = path -> opened.set(true);

            String log = capturingStderr(() -> {
                reloader.poll();
                reloader.poll();
                reloader.poll();
            });

            assertThat(opened).as("the file was opened").isFalse();
            assertThat(results).hasSize(1);
            assertThat(service.config().version()).isEqualTo(initialVersion);
            assertThat(log.lines().filter(l -> l.contains("ERROR")).toList()).containsExactly(log.lines()
                    .filter(l -> l.contains("ERROR")).findFirst().orElseThrow());
            assertThat(log).contains("ERROR dev.quota.core.config.ConfigReloader - quota config " + file
                    + " refused, version " + initialVersion + " stays active: the config is 3221225472 bytes;");
        }
    }

    @Test
    void refusal_reachesTheServiceListenersAsARejectedReload() throws IOException {
        List<Boolean> reloads = new CopyOnWriteArrayList<>();
        QuotaService listened = QuotaService.builder().store(InMemoryStore.builder().clock(clock).build())
                .config(QuotaConfigLoader.load(file)).clock(clock)
                .listener(new QuotaListener() {
                    @Override
                    public void onReload(boolean applied, long version) {
                        reloads.add(applied);
                    }
                }).build();
        try (ConfigReloader reloader = ConfigReloader.watch(file, listened, Duration.ofHours(1), results::add)) {
            sparse(THREE_GB);
            reloader.poll();
            reloader.poll();
        } finally {
            listened.close();
        }

        assertThat(reloads).containsExactly(false);
    }

    @Test
    void fileGrowingBetweenTheCheckAndTheRead_isReadNoFurtherThanTheLimit() throws IOException {
        try (ConfigReloader reloader = manual()) {
            Files.writeString(file, config(200));
            reloader.beforeOpen = path -> append(path, new byte[2 * QuotaConfigLoader.MAX_SIZE]);

            reloader.poll();

            assertThat(results).hasSize(1);
            assertThat(results.get(0).errors()).containsExactly(
                    "the config is more than 1000000 bytes; the limit is 1000000 (1 MB), so it was not parsed");
            assertThat(freeBurst()).isEqualTo(100);
        }
    }

    @Test
    void fifo_isNeverOpened_andAGoodFileAfterwardsApplies() throws Exception {
        try (ConfigReloader reloader = manual()) {
            Files.delete(file);
            assumeThat(mkfifo(file)).as("mkfifo is available").isTrue();

            assertTimeoutPreemptively(Duration.ofSeconds(10), reloader::poll, "a FIFO blocked the check");
            assertTimeoutPreemptively(Duration.ofSeconds(10), reloader::poll, "a FIFO blocked the check");

            assertThat(results).hasSize(1);
            assertThat(results.get(0).errors()).containsExactly(
                    "the config path is not a regular file (a FIFO, a socket or a device), so it was not opened");
            Files.delete(file);
            Files.writeString(file, config(300));
            reloader.poll();
            assertThat(freeBurst()).isEqualTo(300);
        }
    }

    @Test
    void load_ofAFifo_isRefusedWithoutBlocking() throws Exception {
        Path fifo = dir.resolve("fifo.yaml");
        assumeThat(mkfifo(fifo)).as("mkfifo is available").isTrue();

        assertTimeoutPreemptively(Duration.ofSeconds(10), () ->
                assertThatThrownBy(() -> QuotaConfigLoader.load(fifo))
                        .isInstanceOf(InvalidConfigException.class)
                        .hasMessageContaining("not a regular file"));
    }

    @Test
    void directory_isRefused() throws IOException {
        try (ConfigReloader reloader = manual()) {
            Files.delete(file);
            Files.createDirectory(file);

            reloader.poll();

            assertThat(results).singleElement().extracting(ConfigReloader.Result::errors)
                    .isEqualTo(List.of("the config path is a directory, not a file"));
        }
    }

    @Test
    void errorInsideTheCheck_isCaughtAndLoggedOnce_andAGoodEditStillApplies() throws IOException {
        try (ConfigReloader reloader = manual()) {
            reloader.beforeOpen = path -> {
                throw new OutOfMemoryError("injected");
            };
            Files.writeString(file, config(200));

            String log = capturingStderr(() -> {
                assertThatCode(reloader::poll).doesNotThrowAnyException();
                assertThatCode(reloader::poll).doesNotThrowAnyException();
            });

            assertThat(log.lines().filter(l -> l.contains("ERROR")).count()).isEqualTo(1);
            assertThat(log).contains("quota config watch of " + file + " failed")
                    .contains("java.lang.OutOfMemoryError: injected");
            assertThat(freeBurst()).isEqualTo(100);

            reloader.beforeOpen = path -> { };
            reloader.poll();

            assertThat(freeBurst()).isEqualTo(200);
        }
    }

    @Test
    void errorInsideAScheduledCheck_doesNotCancelTheNextOnes() throws IOException {
        AtomicBoolean thrown = new AtomicBoolean();
        try (ConfigReloader reloader = ConfigReloader.watch(file, service, Duration.ofMillis(20), results::add)) {
            reloader.beforeOpen = path -> {
                if (thrown.compareAndSet(false, true)) {
                    throw new StackOverflowError("injected");
                }
            };
            awaitTrue(thrown::get, "the scheduled check ran into the injected error");

            Files.writeString(file, config(300));

            awaitTrue(() -> freeBurst() == 300, "an edit after the error applied");
        }
    }

    @Test
    void sameInvalidContent_isReportedOnce_newInvalidContentAgain() throws IOException {
        try (ConfigReloader reloader = manual()) {
            Files.writeString(file, config(0));
            reloader.poll();
            reloader.poll();
            Files.writeString(file, config(-1));
            reloader.poll();

            assertThat(results).extracting(ConfigReloader.Result::applied).containsExactly(false, false);
        }
    }

    @Test
    void refusedThenFixedThenRefusedAgain_isLoggedAgain() throws IOException {
        try (ConfigReloader reloader = manual()) {
            sparse(THREE_GB);
            reloader.poll();
            Files.delete(file);
            Files.writeString(file, config(300));
            reloader.poll();
            sparse(THREE_GB);
            reloader.poll();

            assertThat(results).extracting(ConfigReloader.Result::applied).containsExactly(false, true, false);
        }
    }

    @Test
    void reloadNow_ofAnOversizedFile_reportsTheRefusalEveryTime() throws IOException {
        try (ConfigReloader reloader = manual()) {
            sparse(THREE_GB);

            assertThat(reloader.reloadNow().applied()).isFalse();
            assertThat(reloader.reloadNow().errors()).containsExactly(
                    "the config is 3221225472 bytes; the limit is 1000000 (1 MB), so it was not read");
            assertThat(results).hasSize(2);
        }
    }

    /** Makes the watched file {@code length} bytes long without writing them: cheap at any size. */
    private void sparse(long length) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(length);
        }
    }

    private static void append(Path path, byte[] bytes) {
        try {
            Files.write(path, bytes, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static boolean mkfifo(Path path) {
        try {
            Process process = new ProcessBuilder("mkfifo", path.toString()).redirectErrorStream(true).start();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0 && Files.exists(path);
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Waits for the reloader's own thread, at most 5 s. */
    private static void awaitTrue(BooleanSupplier condition, String what) {
        Await.until(Duration.ofSeconds(5), condition, () -> what);
        assertThat(condition.getAsBoolean()).as(what).isTrue();
    }

    /** Runs {@code action} with System.err captured; slf4j-simple looks System.err up per line. */
    private static String capturingStderr(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
