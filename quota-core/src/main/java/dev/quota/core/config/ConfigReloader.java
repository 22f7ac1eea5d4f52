package dev.quota.core.config;

import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
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
 * <p>Every attempt also reaches the service's {@link dev.quota.core.QuotaListener#onReload}
 * (metrics count applied and rejected reloads there); the {@code listener} given to {@link #watch}
 * additionally gets the errors and warnings.
 */
public final class ConfigReloader implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConfigReloader.class);

    private final Path file;
    private final QuotaService service;
    private final Consumer<Result> listener;
    private final ScheduledExecutorService scheduler;
    private byte @Nullable [] lastDigest;

    private ConfigReloader(Path file, QuotaService service, Duration interval, Consumer<Result> listener) {
        this.file = file;
        this.service = service;
        this.listener = listener;
        this.lastDigest = digestOrNull();
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "quota-config-reloader");
            t.setDaemon(true);
            return t;
        });
        long millis = interval.toMillis();
        scheduler.scheduleWithFixedDelay(this::checkQuietly, millis, millis, TimeUnit.MILLISECONDS);
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
     * Loads the file now and applies it if it is valid, whether or not it changed.
     *
     * @return what happened
     */
    public synchronized Result reloadNow() {
        byte[] digest = digestOrNull();
        Result result;
        try {
            // Through the service, so its QuotaListeners hear of every attempt, applied or rejected.
            QuotaConfig active = service.reload(() -> QuotaConfigLoader.load(file));
            result = new Result(true, active.version(), List.of(), active.warnings());
            log.info("quota config {} reloaded: version {}", file, active.version());
            active.warnings().forEach(w -> log.warn("quota config {}: {}", file, w));
        } catch (InvalidConfigException e) {
            List<String> errors = e.errors().stream().map(ConfigError::toString).toList();
            result = new Result(false, service.config().version(), errors, List.of());
            log.error("quota config {} rejected, version {} stays active; {} error(s):\n  {}", file,
                    service.config().version(), errors.size(), String.join("\n  ", errors));
        } catch (IllegalArgumentException | UncheckedIOException e) {
            result = new Result(false, service.config().version(), List.of(e.getMessage()), List.of());
            log.error("quota config {} rejected, version {} stays active: {}", file, service.config().version(),
                    e.getMessage());
        }
        lastDigest = digest;
        listener.accept(result);
        return result;
    }

    /** Stops watching. */
    @Override
    public void close() {
        scheduler.shutdownNow();
    }

    private synchronized void checkQuietly() {
        try {
            byte[] digest = digestOrNull();
            if (digest != null && !Arrays.equals(digest, lastDigest)) {
                reloadNow();
            }
        } catch (RuntimeException e) {
            log.error("quota config watch of {} failed: {}", file, e.toString());
        }
    }

    private byte @Nullable [] digestOrNull() {
        try {
            return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
        } catch (IOException e) {
            return null;
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
