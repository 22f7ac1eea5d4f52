package dev.quota.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that stands still until a test moves it: time-dependent behaviour (refill, windows,
 * expiry) is tested by advancing it, never by sleeping.
 */
public final class MutableClock extends Clock {

    private final AtomicReference<Instant> now;
    private final ZoneId zone;

    private MutableClock(AtomicReference<Instant> now, ZoneId zone) {
        this.now = now;
        this.zone = zone;
    }

    /** A clock frozen at {@code start}, in UTC. */
    public static MutableClock at(Instant start) {
        return new MutableClock(new AtomicReference<>(start), ZoneOffset.UTC);
    }

    /** A clock frozen at {@code start} given as ISO-8601, e.g. {@code 2026-03-29T00:30:00Z}. */
    public static MutableClock at(String isoInstant) {
        return at(Instant.parse(isoInstant));
    }

    /** Moves time forward (or back, for a negative amount). */
    public void advance(Duration amount) {
        now.updateAndGet(t -> t.plus(amount));
    }

    /** Sets the time. */
    public void set(Instant instant) {
        now.set(instant);
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId newZone) {
        return new MutableClock(now, newZone);
    }

    @Override
    public Instant instant() {
        return now.get();
    }
}
