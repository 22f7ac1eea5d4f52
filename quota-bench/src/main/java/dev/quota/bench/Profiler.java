package dev.quota.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.Locale;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.jspecify.annotations.Nullable;

/**
 * JFR recordings of the measured slices only ({@code --profile DIR}): one file per slice, named
 * after the scenario, the limiter and the slice, with JFR's {@code profile} settings (execution
 * samples every 10 ms, allocation and lock events). Warm-ups and primings are left out, so a
 * profile shows what the measured numbers cost.
 */
final class Profiler {

    private final @Nullable Path directory;
    private int sequence;

    Profiler(@Nullable Path directory) {
        this.directory = directory;
    }

    /** A recording of what runs until {@link Slice#close}; nothing when no directory was given. */
    Slice start(String name) {
        if (directory == null) {
            return () -> { };
        }
        try {
            Files.createDirectories(directory);
            Recording recording = new Recording(Configuration.getConfiguration("profile"));
            recording.setToDisk(true);
            recording.start();
            Path file = directory.resolve(String.format(Locale.ROOT, "%03d-%s.jfr", ++sequence,
                    name.replaceAll("[^A-Za-z0-9.+-]+", "_")));
            return () -> {
                recording.stop();
                try {
                    recording.dump(file);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot write " + file, e);
                } finally {
                    recording.close();
                }
            };
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record into " + directory, e);
        } catch (ParseException e) {
            throw new IllegalStateException("JFR's profile settings do not parse", e);
        }
    }

    /** A slice being recorded. */
    interface Slice extends AutoCloseable {
        @Override
        void close();
    }
}
