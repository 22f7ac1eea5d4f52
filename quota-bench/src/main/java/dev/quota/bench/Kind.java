package dev.quota.bench;

import java.time.Duration;
import org.redisson.api.RedissonClient;

/** The limiters a scenario compares, in report order: this module first, then the baselines. */
public enum Kind {
    /** This module as shipped. */
    QUOTA("this module"),
    /** This module reading before every write ({@code reuseWrittenState(false)}): the before of that tuning. */
    QUOTA_READ_FIRST("this module, reuseWrittenState off"),
    /** This module with local rejections off ({@code rejectLocallyFor(0)}): the before of that tuning. */
    QUOTA_NO_LOCAL("this module, rejectLocallyFor 0"),
    /** Baseline (a): one Lua script, one EVALSHA. */
    LUA("(a) Lua token bucket"),
    /** Baseline (b): Redisson's RRateLimiter. */
    RRATELIMITER("(b) RRateLimiter"),
    /** Baseline (c): Bucket4j's ProxyManager with its defaults. */
    BUCKET4J_DEFAULT("(c) Bucket4j defaults"),
    /** This module deciding the demo's transfer: five buckets, through today's API. */
    QUOTA_TRANSFER("this module, transfer decision", true),
    /** Baseline (a), layered: the transfer's five buckets in one Lua script, one EVALSHA. */
    LUA_TRANSFER("(a) Lua floor, layered", true);

    private final String label;
    private final boolean transfer;

    Kind(String label) {
        this(label, false);
    }

    Kind(String label, boolean transfer) {
        this.label = label;
        this.transfer = transfer;
    }

    /** The name in tables and charts. */
    public String label() {
        return label;
    }

    /** Whether it decides the transfer's five buckets ({@link TransferLimits}) rather than one limit. */
    public boolean transfer() {
        return transfer;
    }

    /**
     * A contender of this kind deciding the transfer over {@code limits}, its keys under {@code namespace}.
     *
     * @throws IllegalArgumentException if this kind decides one limit
     */
    Contender create(RedissonClient client, TransferLimits limits, String namespace) {
        switch (this) {
            case QUOTA_TRANSFER:
                return QuotaContender.transfer(client, limits, namespace);
            case LUA_TRANSFER:
                return new LayeredLuaContender(client, limits, namespace);
            default:
                throw new IllegalArgumentException(this + " decides one limit, not a transfer");
        }
    }

    /**
     * A contender of this kind on {@code client}, its keys under {@code namespace}.
     *
     * @throws IllegalArgumentException if this kind decides a transfer
     */
    public Contender create(RedissonClient client, LimitSpec limit, String namespace) {
        if (transfer) {
            throw new IllegalArgumentException(this + " decides a transfer, not one limit");
        }
        switch (this) {
            case QUOTA:
                return new QuotaContender(client, limit, namespace, null, true);
            case QUOTA_READ_FIRST:
                return new QuotaContender(client, limit, namespace, null, false);
            case QUOTA_NO_LOCAL:
                return new QuotaContender(client, limit, namespace, Duration.ZERO, true);
            case LUA:
                return new LuaContender(client, limit, namespace);
            case RRATELIMITER:
                return new RateLimiterContender(client, limit, namespace);
            default:
                return new DefaultBucket4jContender(client, limit, namespace);
        }
    }
}
