package dev.quota.redis;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the instances that share the limits, for the {@link dev.quota.core.FailurePolicy#LOCAL}
 * policy: while Redis is unavailable each instance enforces {@code 1/n} of every limit, so three
 * instances of a service with 300 per minute keep the fleet near 300, not 900.
 *
 * <p>Every instance has a member in the sorted set {@code <prefix>:instances}, scored with the
 * Redis time at which it expires. A daemon thread renews it every {@code heartbeatInterval}
 * (default 1 s) with a time to live of {@code timeToLive} (default 3 heartbeats), drops expired
 * members and reads the count, in one script: one round trip per instance per second, one key
 * (so it works on a cluster), and no clock of any instance involved. A crashed instance drops out
 * after its time to live; one that closes the registry, at once.
 *
 * <pre>{@code
 * InstanceRegistry instances = InstanceRegistry.builder(store.client()).build();
 * QuotaService.builder().store(store).liveInstances(instances::liveInstances)...
 * }</pre>
 */
public final class InstanceRegistry implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(InstanceRegistry.class);
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.-]{1,32}");
    // effects replication (Redis >= 3.2) lets a script that called TIME write; Redis 7 always does it
    private static final String HEARTBEAT = "if redis.replicate_commands then redis.replicate_commands() end\n"
            + "local t = redis.call('TIME')\n"
            + "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
            + "local ttl = tonumber(ARGV[2])\n"
            + "redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])\n"
            + "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)\n"
            + "redis.call('PEXPIRE', KEYS[1], ttl)\n"
            // the rank: this member's place among all members in byte order, the same order everywhere
            + "local members = redis.call('ZRANGE', KEYS[1], 0, -1)\n"
            + "table.sort(members)\n"
            + "local rank = -1\n"
            + "for i, m in ipairs(members) do if m == ARGV[1] then rank = i - 1 end end\n"
            + "return {#members, rank}";

    private final RedissonClient client;
    private final String key;
    private final String instanceId = UUID.randomUUID().toString();
    private final long ttlMillis;
    private final ScheduledThreadPoolExecutor heartbeats;
    /** The count and rank of the last heartbeat, read together. */
    private volatile Standing standing = new Standing(1, 0);
    private volatile boolean failing;

    private InstanceRegistry(RedissonClient client, String keyPrefix, Duration timeToLive) {
        this.client = client;
        this.key = keyPrefix + ":instances";
        this.ttlMillis = timeToLive.toMillis();
        this.heartbeats = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "quota-instance-heartbeat");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * A builder for a registry in the Redis of {@code client}, e.g. {@code redisStore.client()}:
     * key prefix {@code quota}, a heartbeat every second, a time to live of 3 s.
     */
    public static Builder builder(RedissonClient client) {
        return new Builder(client);
    }

    /**
     * The number of live instances at the last heartbeat, this one included: never below 1, and
     * unchanged while Redis cannot be reached.
     */
    public int liveInstances() {
        return standing.live;
    }

    /**
     * This instance's place among the live instances at the last heartbeat, 0-based, in the order
     * of their ids (the same order on every instance), for
     * {@code QuotaServiceBuilder.liveInstances(registry::liveInstances, registry::rank)}: the
     * remainder of a limit divided by the live instances goes to the lowest ranks. Unchanged while
     * Redis cannot be reached.
     */
    public int rank() {
        return standing.rank;
    }

    /** This instance's member in the set: a random UUID. */
    public String instanceId() {
        return instanceId;
    }

    /** Stops the heartbeat and removes this instance from the set (best effort). */
    @Override
    public void close() {
        heartbeats.shutdownNow();
        try {
            client.getScoredSortedSet(key, StringCodec.INSTANCE).remove(instanceId);
        } catch (RuntimeException e) {
            log.debug("could not deregister instance {}: {}", instanceId, e.toString());
        }
    }

    /** Renews this instance now and updates the count; false if Redis could not be reached. */
    boolean heartbeat() {
        try {
            List<Object> answer = client.getScript(StringCodec.INSTANCE).eval(key, RScript.Mode.READ_WRITE, HEARTBEAT,
                    RScript.ReturnType.LIST, List.of(key), instanceId, Long.toString(ttlMillis));
            int live = (int) Math.max(1, Math.min(Integer.MAX_VALUE, number(answer, 0, 1)));
            int rank = (int) Math.max(-1, Math.min(live - 1, number(answer, 1, -1)));
            standing = new Standing(live, rank);
            if (failing) {
                log.info("instance heartbeat reaches Redis again; {} live instances", standing.live);
            }
            failing = false;
            return true;
        } catch (RuntimeException e) {
            if (!failing) {
                log.warn("instance heartbeat failed ({}); keeping the last count of {} live instances",
                        e.toString(), standing.live);
            }
            failing = true;
            return false;
        }
    }

    private static long number(@Nullable List<Object> answer, int index, long otherwise) {
        return answer != null && answer.size() > index && answer.get(index) instanceof Long n ? n : otherwise;
    }

    /** The live instances and this one's rank among them. */
    private record Standing(int live, int rank) {
    }

    private void start(Duration interval) {
        heartbeat();
        long nanos = interval.toNanos();
        heartbeats.scheduleWithFixedDelay(this::heartbeat, nanos, nanos, TimeUnit.NANOSECONDS);
    }

    /** Settings for an {@link InstanceRegistry}. */
    public static final class Builder {
        private final RedissonClient client;
        private String keyPrefix = "quota";
        private Duration heartbeatInterval = Duration.ofSeconds(1);
        private @Nullable Duration timeToLive;

        private Builder(RedissonClient client) {
            this.client = Objects.requireNonNull(client, "client");
        }

        /**
         * The prefix of the set's key, {@code <prefix>:instances}; default {@code quota}. Services
         * that share limits must share it.
         *
         * @throws IllegalArgumentException if not 1-32 of {@code [A-Za-z0-9_.-]}
         */
        public Builder keyPrefix(String prefix) {
            if (prefix == null || !PREFIX.matcher(prefix).matches()) {
                throw new IllegalArgumentException("key prefix must match [A-Za-z0-9_.-]{1,32} but was \"" + prefix + "\"");
            }
            this.keyPrefix = prefix;
            return this;
        }

        /**
         * How often this instance renews itself and re-reads the count; default 1 s.
         *
         * @throws IllegalArgumentException if shorter than 10 ms
         */
        public Builder heartbeatInterval(Duration interval) {
            if (interval.compareTo(Duration.ofMillis(10)) < 0) {
                throw new IllegalArgumentException("heartbeatInterval must be >= 10ms but was " + interval);
            }
            this.heartbeatInterval = interval;
            return this;
        }

        /**
         * How long an instance counts as live after its last heartbeat; default 3 heartbeat
         * intervals.
         *
         * @throws IllegalArgumentException if not positive (checked against the interval in
         *                                  {@link #build()})
         */
        public Builder timeToLive(Duration ttl) {
            if (ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("timeToLive must be positive but was " + ttl);
            }
            this.timeToLive = ttl;
            return this;
        }

        /**
         * The registry: registers this instance now (if Redis answers) and starts the heartbeat.
         *
         * @throws IllegalArgumentException if the time to live is not longer than the interval
         */
        public InstanceRegistry build() {
            Duration ttl = timeToLive != null ? timeToLive : heartbeatInterval.multipliedBy(3);
            if (ttl.compareTo(heartbeatInterval) <= 0) {
                throw new IllegalArgumentException("timeToLive " + ttl + " must be longer than heartbeatInterval "
                        + heartbeatInterval);
            }
            InstanceRegistry registry = new InstanceRegistry(client, keyPrefix, ttl);
            registry.start(heartbeatInterval);
            return registry;
        }
    }
}
