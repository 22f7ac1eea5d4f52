package dev.quota.redis;

import dev.quota.core.spi.LeaseHolder;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
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
 * (default 1 s) with a time to live of {@code timeToLive} (default 3 heartbeats) and reads the
 * count of members not expired, in one script: one round trip per instance per second, keys in one
 * hash slot (so it works on a cluster), and no clock of any instance involved. A crashed instance
 * drops out of the count after its time to live; one that closes the registry, at once.
 *
 * <p><b>Dead instances.</b> An instance whose registration ended more than {@code deadMargin}
 * (default 5 s) ago, without a heartbeat and without closing, is declared dead, for good: its member
 * moves to the set {@code {<prefix>:instances}:dead} (the same cluster slot), kept an hour. Every
 * heartbeat reads that set, and {@link #leaseHolder()} tells the decisions: a take from a
 * customer's lease set frees, in the same atomic step, the slots held by an instance declared dead
 * (see {@link LeaseHolder}). With the defaults a killed instance's leases come back at the
 * customer's next request at most 3 s + 5 s + 2 heartbeats (10 s) after the kill, never later than
 * their lease timeout.
 *
 * <p>An instance that was not dead but stopped (a pause longer than the time to live plus the
 * margin) finds at its next heartbeat that it was declared dead: it logs a warning and registers
 * again under a new id. Its leases may have been freed meanwhile: its requests still running count
 * for nothing, and the customer may run up to that many more than the limit until they end; their
 * give-backs free nothing. It never tags a lease while its own registration may have ended (its
 * last heartbeat that reached Redis is older than the time to live): such a lease is held until its
 * deadline, as without a registry.
 *
 * <pre>{@code
 * InstanceRegistry instances = InstanceRegistry.builder(store.client()).build();
 * QuotaService.builder().store(store).liveInstances(instances::liveInstances, instances::rank)
 *         .leaseHolder(instances::leaseHolder)...
 * }</pre>
 */
public final class InstanceRegistry implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(InstanceRegistry.class);
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.-]{1,32}");
    /** How long a dead instance is remembered: its leases are freed early within that time of its death. */
    static final Duration DEAD_KEPT = Duration.ofHours(1);
    /** The most dead instances remembered, the last declared. */
    static final int MOST_DEAD = 1_000;
    // effects replication (Redis >= 3.2) lets a script that called TIME write; Redis 7 always does it.
    // KEYS[1] the live members scored with when they expire, KEYS[2] the dead scored with when declared
    private static final String HEARTBEAT = "if redis.replicate_commands then redis.replicate_commands() end\n"
            + "local t = redis.call('TIME')\n"
            + "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
            + "local ttl = tonumber(ARGV[2])\n"
            + "local margin = tonumber(ARGV[3])\n"
            + "local kept = tonumber(ARGV[4])\n"
            // a registration that ended more than the margin ago: declared dead, for good
            + "local ended = '(' .. (now - margin)\n"
            + "for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ended)) do\n"
            + "  redis.call('ZADD', KEYS[2], now, m)\n"
            + "end\n"
            + "redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ended)\n"
            + "redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. (now - kept))\n"
            + "redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -" + (MOST_DEAD + 1) + ")\n"
            // an instance declared dead never comes back under its id: it registers again under another
            + "local declared = redis.call('ZSCORE', KEYS[2], ARGV[1]) and 1 or 0\n"
            + "if declared == 0 then redis.call('ZADD', KEYS[1], now + ttl, ARGV[1]) end\n"
            // kept long enough that instances killed together are declared dead by the next one to start
            + "redis.call('PEXPIRE', KEYS[1], ttl + kept)\n"
            + "if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], kept) end\n"
            // the rank: this member's place among the live members in byte order, the same order everywhere
            + "local members = redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf')\n"
            + "table.sort(members)\n"
            + "local rank = -1\n"
            + "for i, m in ipairs(members) do if m == ARGV[1] then rank = i - 1 end end\n"
            + "local answer = {#members, rank, declared}\n"
            + "for _, m in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do answer[#answer + 1] = m end\n"
            + "return answer";

    private final RedissonClient client;
    private final String key;
    /** The dead members: a hash tag of the live set's whole key, so both are in one cluster slot. */
    private final String deadKey;
    /** This instance's member; another after it was declared dead. Written by the heartbeat thread only. */
    private volatile String instanceId = UUID.randomUUID().toString();
    private final long ttlMillis;
    private final long marginMillis;
    private final LongSupplier nanoTime;
    private final ScheduledThreadPoolExecutor heartbeats;
    /** The count and rank of the last heartbeat, read together. */
    private volatile Standing standing = new Standing(1, 0);
    /** What the last heartbeat that reached Redis said of leases: this instance's tag and the dead. */
    private volatile Holders holders = new Holders(LeaseHolder.NONE, LeaseHolder.NONE, 0);
    private volatile boolean failing;

    private InstanceRegistry(RedissonClient client, String keyPrefix, Duration timeToLive, Duration margin,
                             LongSupplier nanoTime) {
        this.client = client;
        this.key = keyPrefix + ":instances";
        this.deadKey = "{" + key + "}:dead";
        this.ttlMillis = timeToLive.toMillis();
        this.marginMillis = margin.toMillis();
        this.nanoTime = nanoTime;
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

    /**
     * This instance's member in the set: a random UUID, replaced by another when this instance
     * finds it was declared dead (see the class description).
     */
    public String instanceId() {
        return instanceId;
    }

    /**
     * Who takes this instance's in-flight leases, for
     * {@code QuotaServiceBuilder.leaseHolder(registry::leaseHolder)}: this instance's tag
     * ({@link LeaseHolder#tagOf} of its id) while its registration is certainly valid (its last
     * heartbeat that reached Redis was sent less than the time to live ago), else no tag; and the
     * tags of the instances declared dead, as of the last heartbeat that reached Redis. Never throws.
     */
    public LeaseHolder leaseHolder() {
        Holders now = holders;
        return nanoTime.getAsLong() - now.validUntilNanos < 0 ? now.tagged : now.untagged;
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
            long sent = nanoTime.getAsLong();
            String id = instanceId;
            List<Object> answer = client.getScript(StringCodec.INSTANCE).eval(key, RScript.Mode.READ_WRITE, HEARTBEAT,
                    RScript.ReturnType.LIST, List.of(key, deadKey), id, Long.toString(ttlMillis),
                    Long.toString(marginMillis), Long.toString(DEAD_KEPT.toMillis()));
            if (number(answer, 2, 0) == 1) {
                // a pause longer than the time to live and the margin: the others freed this id's leases
                log.warn("instance {} was declared dead after more than {} ms without a heartbeat; its in-flight"
                        + " leases may have been freed, so requests it still runs may exceed in-flight limits until"
                        + " they end; registering again under a new id", id, ttlMillis + marginMillis);
                instanceId = UUID.randomUUID().toString();
                return heartbeat();
            }
            int live = (int) Math.max(1, Math.min(Integer.MAX_VALUE, number(answer, 0, 1)));
            int rank = (int) Math.max(-1, Math.min(live - 1, number(answer, 1, -1)));
            standing = new Standing(live, rank);
            holders = Holders.of(id, answer, sent + TimeUnit.MILLISECONDS.toNanos(ttlMillis));
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

    /**
     * This instance as a lease holder with its tag and without, and until when (by
     * {@link #nanoTime}) its registration is certainly valid, so its tag may be recorded.
     */
    private record Holders(LeaseHolder tagged, LeaseHolder untagged, long validUntilNanos) {

        /** From a heartbeat's answer: the dead members from its fourth element on. */
        static Holders of(String id, @Nullable List<Object> answer, long validUntilNanos) {
            Set<Long> dead = new HashSet<>();
            if (answer != null) {
                for (int i = 3; i < answer.size(); i++) {
                    if (answer.get(i) instanceof String member) {
                        dead.add(LeaseHolder.tagOf(member));
                    }
                }
            }
            return new Holders(new LeaseHolder(LeaseHolder.tagOf(id), dead), new LeaseHolder(0, dead),
                    validUntilNanos);
        }
    }

    private void start(Duration interval) {
        heartbeat();
        long nanos = interval.toNanos();
        // the future is not kept: heartbeat catches and logs its failures, so no run ends the schedule,
        // and close() ends it by shutting the executor down
        ScheduledFuture<?> unused =
                heartbeats.scheduleWithFixedDelay(this::heartbeat, nanos, nanos, TimeUnit.NANOSECONDS);
    }

    /** Settings for an {@link InstanceRegistry}. */
    public static final class Builder {
        private final RedissonClient client;
        private String keyPrefix = "quota";
        private Duration heartbeatInterval = Duration.ofSeconds(1);
        private @Nullable Duration timeToLive;
        private Duration deadMargin = Duration.ofSeconds(5);
        private LongSupplier nanoTime = System::nanoTime;

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
         * How long after its registration ended (its time to live passed without a heartbeat) an
         * instance is declared dead, its in-flight leases freed at each customer's next request;
         * default 5 s. A longer margin tolerates longer pauses of a live instance (and a jump of the
         * Redis clock on a failover) before its leases can be freed; a shorter one frees a killed
         * instance's leases sooner. Every instance should use the same.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder deadMargin(Duration margin) {
            if (margin.isNegative()) {
                throw new IllegalArgumentException("deadMargin must be >= 0 but was " + margin);
            }
            this.deadMargin = margin;
            return this;
        }

        /** The clock that tells whether this instance's registration is certainly valid (tests). */
        Builder nanoTime(LongSupplier nanoTime) {
            this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
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
            InstanceRegistry registry = new InstanceRegistry(client, keyPrefix, ttl, deadMargin, nanoTime);
            registry.start(heartbeatInterval);
            return registry;
        }
    }
}
