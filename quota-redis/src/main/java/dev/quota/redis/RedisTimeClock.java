package dev.quota.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The time according to Redis, read from the local clock plus an offset, so that every instance
 * refills buckets by the same clock even when their hosts disagree.
 *
 * <p>Bucket4j's compare-and-swap buckets are refilled by the clock of whichever instance touches
 * them. An instance whose clock runs 5 s ahead finds 5 s of refill in a bucket another instance
 * just drained: at 1 token per second it admits up to 5 extra requests each time. This clock
 * samples Redis {@code TIME} when it is attached and then every {@code resyncInterval} (default
 * 10 s), taking the best of three round trips and correcting by half the round-trip time; a
 * decision reads only the local clock and a field, never Redis.
 *
 * <p>Give it to the store, which attaches its Redis client and samples once before
 * {@code build()} returns, and to the service:
 * <pre>{@code
 * RedisTimeClock clock = RedisTimeClock.builder().build();
 * RedisStore store = RedisStore.builder().uri("redis://redis:6379").clock(clock).build();
 * QuotaService service = QuotaService.builder().store(store).clock(clock).config(config).build();
 * }</pre>
 * While Redis cannot be reached the last offset is kept (the offset is 0 until a first sample
 * succeeds). The store that attached the clock stops its sampling thread when it is closed.
 */
public final class RedisTimeClock extends Clock implements AutoCloseable {

    private final Sampler sampler;
    private final ZoneId zone;

    private RedisTimeClock(Sampler sampler, ZoneId zone) {
        this.sampler = sampler;
        this.zone = zone;
    }

    /** A builder: local clock {@link Clock#systemUTC()}, resync every 10 s. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Instant instant() {
        return sampler.local.instant().plusNanos(sampler.offsetNanos);
    }

    @Override
    public long millis() {
        return instant().toEpochMilli();
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    /** This clock in another zone; it shares the offset and its sampling. */
    @Override
    public Clock withZone(ZoneId newZone) {
        return newZone.equals(zone) ? this : new RedisTimeClock(sampler, newZone);
    }

    /** How far Redis' clock is ahead of the local one (negative: behind), as last sampled. */
    public Duration offset() {
        return Duration.ofNanos(sampler.offsetNanos);
    }

    /** Stops the sampling thread; the clock keeps its last offset. */
    @Override
    public void close() {
        sampler.stop();
    }

    /**
     * Starts sampling through {@code client}, first once now, unless a client is already attached.
     *
     * @return whether this call attached it
     */
    boolean attach(RedissonClient client) {
        return sampler.attach(client);
    }

    /** Samples Redis now; false if Redis could not be read (the offset is then unchanged). */
    boolean resync() {
        return sampler.sample();
    }

    /** Settings for a {@link RedisTimeClock}. */
    public static final class Builder {
        private Clock local = Clock.systemUTC();
        private Duration resyncInterval = Duration.ofSeconds(10);
        private @Nullable RedissonClient client;

        private Builder() {
        }

        /** The clock the offset is added to; default {@link Clock#systemUTC()}. */
        public Builder local(Clock local) {
            this.local = Objects.requireNonNull(local, "local");
            return this;
        }

        /**
         * How often the offset is sampled again; default 10 s.
         *
         * @throws IllegalArgumentException if not positive
         */
        public Builder resyncInterval(Duration interval) {
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("resyncInterval must be positive but was " + interval);
            }
            this.resyncInterval = interval;
            return this;
        }

        /**
         * A Redisson client to sample through right away; by default the clock waits for the
         * {@link RedisStore} it is given to, which attaches its own client.
         */
        public Builder client(RedissonClient client) {
            this.client = Objects.requireNonNull(client, "client");
            return this;
        }

        /** The clock; with a client, sampled once before this returns. */
        public RedisTimeClock build() {
            RedisTimeClock clock = new RedisTimeClock(new Sampler(local, resyncInterval), local.getZone());
            if (client != null) {
                clock.attach(client);
            }
            return clock;
        }
    }

    /** The offset, shared by a clock and its other-zone views, and the thread that refreshes it. */
    private static final class Sampler {
        private static final Logger log = LoggerFactory.getLogger(RedisTimeClock.class);
        private static final String ROUTING_KEY = "quota:time";
        private static final String TIME_SCRIPT = "return redis.call('TIME')";
        private static final int SAMPLES = 3;

        final Clock local;
        final Duration resyncInterval;
        volatile long offsetNanos;
        private volatile @Nullable RedissonClient client;
        private @Nullable ScheduledExecutorService scheduler;
        private volatile boolean failing;

        Sampler(Clock local, Duration resyncInterval) {
            this.local = local;
            this.resyncInterval = resyncInterval;
        }

        synchronized boolean attach(RedissonClient redisson) {
            if (client != null) {
                return false;
            }
            client = redisson;
            sample();
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, "quota-redis-time");
                thread.setDaemon(true);
                return thread;
            });
            long nanos = resyncInterval.toNanos();
            // the future is not kept: sample catches and logs its failures, so no run ends the schedule,
            // and stop() ends it by shutting the executor down
            ScheduledFuture<?> unused = executor.scheduleWithFixedDelay(this::sample, nanos, nanos, TimeUnit.NANOSECONDS);
            scheduler = executor;
            return true;
        }

        synchronized void stop() {
            if (scheduler != null) {
                scheduler.shutdownNow();
            }
        }

        boolean sample() {
            RedissonClient redisson = client;
            if (redisson == null) {
                return false;
            }
            try {
                RScript script = redisson.getScript(StringCodec.INSTANCE);
                long bestRtt = Long.MAX_VALUE;
                long bestOffset = 0;
                for (int i = 0; i < SAMPLES; i++) {
                    long sent = System.nanoTime();
                    List<Object> time = script.eval(ROUTING_KEY, RScript.Mode.READ_ONLY, TIME_SCRIPT,
                            RScript.ReturnType.LIST, List.of());
                    long received = System.nanoTime();
                    Instant localNow = local.instant();
                    long redisNanos = Long.parseLong(String.valueOf(time.get(0))) * 1_000_000_000L
                            + Long.parseLong(String.valueOf(time.get(1))) * 1_000L;
                    long rtt = received - sent;
                    // Redis read its clock somewhere in the round trip: assume the middle
                    long offset = redisNanos + rtt / 2 - (localNow.getEpochSecond() * 1_000_000_000L + localNow.getNano());
                    if (rtt < bestRtt) {
                        bestRtt = rtt;
                        bestOffset = offset;
                    }
                }
                offsetNanos = bestOffset;
                if (failing) {
                    log.info("Redis TIME readable again; clock offset {} ms", bestOffset / 1_000_000);
                }
                failing = false;
                log.debug("Redis clock offset {} ns (round trip {} ns)", bestOffset, bestRtt);
                return true;
            } catch (RuntimeException e) {
                if (!failing) {
                    log.warn("cannot read Redis TIME ({}); keeping the clock offset of {} ms", e.toString(),
                            offsetNanos / 1_000_000);
                }
                failing = true;
                return false;
            }
        }
    }
}
