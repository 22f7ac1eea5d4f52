package dev.quota.core.config;

import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import java.io.ByteArrayInputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies edits of a config file to a running {@link QuotaService} without a restart and without
 * resetting anyone's usage.
 *
 * <p>The file is checked every {@code interval} (default 500 ms, so an edit is active within about
 * a second) by content hash, not by timestamp alone. A bad edit is rejected as a whole: every
 * error is logged with its path, the previous config stays active, and nothing is half-applied.
 * Polling rather than a file-system watch service works the same on every file system, including
 * bind mounts and ConfigMaps that are swapped by symlink.
 *
 * <p>What is at the path is not trusted: anything but a regular file (a FIFO, a device, a
 * directory) is never opened, a file over {@link QuotaConfigLoader#MAX_SIZE} (1 MB) is refused
 * by its size before it is read, and a file that grows while it is read is read no further than
 * the limit. A refused file is logged at ERROR with its path and the reason once, not on every
 * check, until the condition changes or a good file is back; the same goes for invalid content
 * (once per distinct content) and for a failure of the check itself. Whatever happens in a
 * check, including an {@link Error}, the next check still runs.
 *
 * <p>Every attempt also reaches the service's {@link dev.quota.core.QuotaListener#onReload}
 * (metrics count applied and rejected reloads there); the {@code listener} given to {@link #watch}
 * additionally gets the errors and warnings.
 */
public final class ConfigReloader implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConfigReloader.class);

    private final Path file;
    private final QuotaService service;
    private final Consumer<Result> listener;
    private final Duration interval;
    private final ScheduledExecutorService scheduler;
    /** For tests: runs after the file is checked and before it is opened, on every read. */
    volatile Consumer<Path> beforeOpen = path -> { };

    // guarded by this
    private byte @Nullable [] lastDigest;
    /** The condition last logged for a file that was not read or a check that failed; null when all is well. */
    private @Nullable String lastRefusal;

    private ConfigReloader(Path file, QuotaService service, Duration interval, Consumer<Result> listener) {
        this.file = file;
        this.service = service;
        this.listener = listener;
        this.interval = interval;
        if (ConfigFile.read(file, beforeOpen) instanceof ConfigFile.Content content) {
            this.lastDigest = sha256(content.bytes());
        }
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "quota-config-reloader");
            t.setDaemon(true);
            return t;
        });
        long millis = interval.toMillis();
        // the future is not kept: poll reports its own failures (Throwable included), so no run ends the
        // schedule, and close() ends it by shutting the executor down
        ScheduledFuture<?> unused = scheduler.scheduleWithFixedDelay(this::poll, millis, millis, TimeUnit.MILLISECONDS);
    }

    /**
     * Watches {@code file}, which {@code service}'s active config was loaded from, checking every
     * {@code interval}.
     *
     * @param listener told of every reload attempt, applied or rejected (for metrics and audit)
     * @throws IllegalArgumentException if the interval is not positive
     */
    public static ConfigReloader watch(Path file, QuotaService service, Duration interval, Consumer<Result> listener) {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(service, "service");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval must be positive but was " + interval);
        }
        return new ConfigReloader(file, service, interval, Objects.requireNonNull(listener, "listener"));
    }

    /** Watches {@code file} every 500 ms. */
    public static ConfigReloader watch(Path file, QuotaService service) {
        return watch(file, service, Duration.ofMillis(500), result -> { });
    }

    /**
     * Loads the file now and applies it if it is valid, whether or not it changed. A refused file
     * (not a regular file, too large, unreadable) is logged every time this is called.
     *
     * @return what happened
     */
    public synchronized Result reloadNow() {
        ConfigFile.Read read = ConfigFile.read(file, beforeOpen);
        if (read instanceof ConfigFile.Refused refused) {
            return refuse(refused);
        }
        return apply(((ConfigFile.Content) read).bytes());
    }

    /** Stops watching. */
    @Override
    public void close() {
        scheduler.shutdownNow();
    }

    /**
     * One scheduled check. Never throws: a {@link ScheduledExecutorService} cancels a task that
     * throws, without a word, and hot reload would be gone for good.
     */
    synchronized void poll() {
        try {
            ConfigFile.Read read = ConfigFile.read(file, beforeOpen);
            if (read instanceof ConfigFile.Refused refused) {
                if (!refused.condition().equals(lastRefusal)) {
                    refuse(refused);
                }
                return;
            }
            byte[] bytes = ((ConfigFile.Content) read).bytes();
            lastRefusal = null;
            if (!Arrays.equals(sha256(bytes), lastDigest)) {
                apply(bytes);
            }
        } catch (Throwable e) {
            failed(e);
        }
    }

    private Result apply(byte[] bytes) {
        Result result;
        try {
            // Through the service, so its QuotaListeners hear of every attempt, applied or rejected;
            // parsed from the bytes hashed, not from a second read that might see another file.
            QuotaConfig active = service.reload(() -> QuotaConfigLoader.parse(new ByteArrayInputStream(bytes),
                    file.toString()));
            result = new Result(true, active.version(), List.of(), active.warnings());
            log.info("quota config {} reloaded: version {}", file, active.version());
            active.warnings().forEach(w -> log.warn("quota config {}: {}", file, w));
        } catch (InvalidConfigException e) {
            List<String> errors = e.errors().stream().map(ConfigError::toString).toList();
            result = new Result(false, service.config().version(), errors, List.of());
            log.error("quota config {} rejected, version {} stays active; {} error(s):\n  {}", file,
                    service.config().version(), errors.size(), String.join("\n  ", errors));
        } catch (IllegalArgumentException | UncheckedIOException e) {
            result = new Result(false, service.config().version(), List.of(String.valueOf(e.getMessage())),
                    List.of());
            log.error("quota config {} rejected, version {} stays active: {}", file, service.config().version(),
                    e.getMessage());
        }
        lastDigest = sha256(bytes);
        lastRefusal = null;
        listener.accept(result);
        return result;
    }

    private Result refuse(ConfigFile.Refused refused) {
        lastRefusal = refused.condition();
        try {
            // tells the service's listeners of a rejected reload, as an invalid file would
            service.reload(() -> {
                throw new InvalidConfigException(file.toString(), List.of(new ConfigError("", refused.reason())));
            });
        } catch (InvalidConfigException expected) {
            // the refusal itself, thrown back by the service
        }
        long version = service.config().version();
        log.error("quota config {} refused, version {} stays active: {}; logged once until this changes", file,
                version, refused.reason());
        Result result = new Result(false, version, List.of(refused.reason()), List.of());
        listener.accept(result);
        return result;
    }

    private void failed(Throwable e) {
        String condition = "failed:" + e.getClass().getName();
        if (condition.equals(lastRefusal)) {
            return;
        }
        lastRefusal = condition;
        try {
            log.error("quota config watch of {} failed, the active config stays and the file is checked again in {}"
                    + " ms; logged once until this changes: {}", file, interval.toMillis(), e.toString(), e);
        } catch (Throwable ignored) {
            // out of memory even for the log line: the next check tries again
        }
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java runtime", e);
        }
    }

    /**
     * The outcome of one reload attempt.
     *
     * @param applied  whether the new config is active
     * @param version  the version active afterwards
     * @param errors   why it was rejected, each with its path; empty when applied
     * @param warnings warnings of the applied config
     */
    public record Result(boolean applied, long version, List<String> errors, List<String> warnings) {
        /** Copies the lists. */
        public Result {
            errors = List.copyOf(errors);
            warnings = List.copyOf(warnings);
        }
    }
}
