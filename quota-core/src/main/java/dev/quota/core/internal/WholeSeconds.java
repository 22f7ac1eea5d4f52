package dev.quota.core.internal;

import java.time.Duration;

/** Durations as HTTP clients are told them: whole seconds. */
public final class WholeSeconds {

    private WholeSeconds() {
    }

    /** Whole seconds rounded up: 0 for zero or negative durations, 1 for 0.2 s, 60 for exactly a minute. */
    public static long ceil(Duration duration) {
        if (duration.isNegative() || duration.isZero()) {
            return 0;
        }
        return duration.getNano() == 0 ? duration.getSeconds() : duration.getSeconds() + 1;
    }
}
