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
    BUCKET4J_DEFAULT("(c) Bucket4j defaults");

    private final String label;

    Kind(String label) {
        this.label = label;
    }

    /** The name in tables and charts. */
    public String label() {
        return label;
    }

    /** A contender of this kind on {@code client}, its keys under {@code namespace}. */
    public Contender create(RedissonClient client, LimitSpec limit, String namespace) {
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
