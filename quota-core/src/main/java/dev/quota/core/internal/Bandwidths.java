package dev.quota.core.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConfigurationBuilder;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.VerboseResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/** Translates bucket specs into Bucket4j configurations and Bucket4j results into ours. */
public final class Bandwidths {

    /**
     * Configurations by spec instance: the bucket layout reuses one spec per limits and config
     * version, so a decision finds its configuration without hashing the limits. Weak keys: a spec
     * no longer used (an old config version) is collected with its entry.
     */
    private static final Cache<BucketSpec, BucketConfiguration> CACHE = Caffeine.newBuilder()
            .weakKeys().maximumSize(100_000).executor(Runnable::run).build();

    private Bandwidths() {
    }

    /**
     * The Bucket4j configuration of a spec: one bandwidth per limit, identified by the limit name;
     * for a lease set, one bandwidth per slot (capacity 1, one token back per lease timeout),
     * identified by its index.
     */
    public static BucketConfiguration configuration(BucketSpec spec) {
        BucketConfiguration cached = CACHE.getIfPresent(spec);
        if (cached != null) {
            return cached;
        }
        BucketConfiguration configuration = build(spec);
        CACHE.put(spec, configuration);
        return configuration;
    }

    private static BucketConfiguration build(BucketSpec spec) {
        ConfigurationBuilder builder = BucketConfiguration.builder();
        if (spec.leases()) {
            Duration timeout = spec.leaseTimeout();
            for (int i = 0; i < spec.limits().get(0).capacity(); i++) {
                String id = Integer.toString(i);
                builder.addLimit(b -> b.capacity(1).refillIntervally(1, timeout).id(id));
            }
            return builder.build();
        }
        for (Limit limit : spec.limits()) {
            builder.addLimit(b -> {
                var capacity = b.capacity(limit.capacity());
                if (limit.refill() instanceof Refill.Greedy g) {
                    return capacity.refillGreedy(g.tokens(), g.period()).id(limit.name());
                }
                Refill.Interval i = (Refill.Interval) limit.refill();
                return capacity.refillIntervally(i.tokens(), i.period()).id(limit.name());
            });
        }
        return builder.build();
    }

    /** Our result from a verbose Bucket4j probe. */
    public static ConsumeResult result(VerboseResult<ConsumptionProbe> verbose) {
        ConsumptionProbe probe = verbose.getValue();
        VerboseResult.Diagnostics diagnostics = verbose.getDiagnostics();
        long[] remaining = diagnostics.getAvailableTokensPerEachBandwidth();
        return probe.isConsumed() ? ConsumeResult.taken(remaining, 0, diagnostics.calculateFullRefillingTime())
                : ConsumeResult.notTaken(remaining, probe.getNanosToWaitForRefill(),
                        diagnostics.calculateFullRefillingTime());
    }

    /** A Bucket4j clock reading {@code clock}: wall-clock nanoseconds since the epoch. */
    public static TimeMeter timeMeter(Clock clock) {
        return new TimeMeter() {
            @Override
            public long currentTimeNanos() {
                Instant now = clock.instant();
                return now.getEpochSecond() * 1_000_000_000L + now.getNano();
            }

            @Override
            public boolean isWallClockBased() {
                return true;
            }
        };
    }
}
