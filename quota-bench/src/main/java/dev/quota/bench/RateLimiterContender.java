package dev.quota.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

/**
 * Baseline (b): Redisson's {@code RRateLimiter.tryAcquire()}, {@code capacity} permits per period
 * for each customer. Rates are set in {@link #prepare} (pipelined, before the clock starts), so
 * the measured calls are {@code tryAcquire} only.
 */
final class RateLimiterContender implements Contender {

    private static final int CHUNK = 200;

    private final RedissonClient client;
    private final LimitSpec limit;
    private final String namespace;
    private volatile RRateLimiter[] limiters = new RRateLimiter[0];

    RateLimiterContender(RedissonClient client, LimitSpec limit, String namespace) {
        this.client = client;
        this.limit = limit;
        this.namespace = namespace + ":rl:";
    }

    @Override
    public void prepare(int customers) {
        RRateLimiter[] created = new RRateLimiter[customers];
        for (int from = 0; from < customers; from += CHUNK) {
            int to = Math.min(customers, from + CHUNK);
            List<CompletableFuture<Boolean>> pending = new ArrayList<>();
            for (int i = from; i < to; i++) {
                created[i] = client.getRateLimiter(namespace + i);
                pending.add(created[i].trySetRateAsync(RateType.OVERALL, limit.capacity(), limit.period())
                        .toCompletableFuture());
            }
            try {
                CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
            } catch (RuntimeException e) {
                // a timeout on a busy machine: set the chunk again, one at a time (trySetRate is idempotent)
                for (int i = from; i < to; i++) {
                    created[i].trySetRate(RateType.OVERALL, limit.capacity(), limit.period());
                }
            }
        }
        limiters = created;
    }

    @Override
    public Outcome acquire(int customer) {
        try {
            return limiters[customer].tryAcquire() ? Outcome.ADMITTED : Outcome.REJECTED;
        } catch (RuntimeException e) {
            return Outcome.ERROR;
        }
    }

    @Override
    public String keyMarker(int customer) {
        return namespace + customer;
    }

    @Override
    public void close() {
        // the client belongs to the instance
    }
}
