package dev.quota.bench.grid;

import dev.quota.core.Customer;
import dev.quota.core.Limit;
import dev.quota.core.QuotaService;
import dev.quota.core.config.QuotaConfigLoader;
import dev.quota.core.Refill;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.Take;
import dev.quota.jcache.JCacheStore;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.grid.jcache.Bucket4jJCache;
import io.github.bucket4j.grid.jcache.JCacheProxyManager;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import javax.cache.Cache;

/**
 * One limiter on the grid, deciding for a customer over one limit or over a plan and a rule (two
 * buckets, as a transfer's per-customer limits). Limits are so large that every decision is
 * admitted: each one changes state in the grid, none is a read-only refusal. Thread-safe.
 */
abstract class GridContender {

    /** Capacity of every limit: never reached in a run. */
    static final long CAPACITY = 1_000_000_000_000L;

    /** How many buckets a decision takes. */
    enum Shape {
        /** The plan's limit alone. */
        ONE_LIMIT("1 limit"),
        /** The plan and a rule's per-customer limit: two buckets of one customer. */
        PLAN_AND_RULE("plan + rule");

        final String label;

        Shape(String label) {
            this.label = label;
        }
    }

    /** Decides once for {@code customer}; true when admitted. */
    abstract boolean decide(String customer);

    /** The contender named {@code name}, on {@code cache} ({@code String} keys, {@code byte[]} values). */
    static GridContender of(String name, Shape shape, Cache<String, byte[]> cache) {
        return switch (name) {
            case "quota-cas" -> new Quota(JCacheStore.builder(cache).build(), shape);
            case "quota-cas-unmerged" -> new Quota(JCacheStore.builder(cache).mergeDecisions(false).build(), shape);
            case "quota-service" -> new Service(JCacheStore.builder(cache).build(), shape);
            case "quota-processor" -> new Quota(JCacheStore.builder(cache).update(JCacheStore.Update.ENTRY_PROCESSOR)
                    .build(), shape);
            case "bucket4j-jcache" -> new Bucket4j(Bucket4jJCache.entryProcessorBasedBuilder(cache).build(), shape);
            default -> throw new IllegalArgumentException("unknown grid contender " + name);
        };
    }

    /** The JCache store, asked as the core asks it: one consume of the decision's takes. */
    private static final class Quota extends GridContender {
        private static final BucketSpec PLAN = BucketSpec.of(List.of(
                new Limit("burst", CAPACITY, Refill.greedy(CAPACITY, Duration.ofHours(1)))), 1);
        private static final BucketSpec RULE = BucketSpec.of(List.of(
                new Limit("transfers", CAPACITY, Refill.greedy(CAPACITY, Duration.ofHours(1)))), 1);

        private final JCacheStore store;
        private final Shape shape;

        Quota(JCacheStore store, Shape shape) {
            this.store = store;
            this.shape = shape;
        }

        @Override
        boolean decide(String customer) {
            // the core's key scheme: a customer's buckets share the braced part
            Take plan = Take.of(new BucketKey("quota:{c." + customer + "}:p"), PLAN, 1);
            if (shape == Shape.ONE_LIMIT) {
                return store.tryConsume(List.of(plan)).get(0).tokensTaken();
            }
            Take rule = Take.of(new BucketKey("quota:{c." + customer + "}:r:transfers"), RULE, 1);
            List<ConsumeResult> results = store.tryConsume(List.of(plan, rule));
            return results.get(0).tokensTaken() && results.get(1).tokensTaken();
        }
    }

    /**
     * {@code QuotaService} with its defaults over the JCache store as shipped: what an application
     * gets, leased shares of a busy customer's buckets included. Both limits are the plan's and the
     * rule's, as {@link Quota}'s.
     */
    private static final class Service extends GridContender {
        private static final String CONFIG = """
                plans:
                  bench:
                    limits:
                      - {name: burst, capacity: %1$d, period: 1h}
                rules:
                  transfers:
                    limits:
                      - {name: transfers, capacity: %1$d, period: 1h}
                """.formatted(CAPACITY);

        private final QuotaService service;
        private final Shape shape;

        Service(JCacheStore store, Shape shape) {
            this.service = QuotaService.builder().store(store)
                    .config(QuotaConfigLoader.parse(CONFIG, "grid-bench.yaml")).build();
            this.shape = shape;
        }

        @Override
        boolean decide(String customer) {
            return service.decide(Customer.of(customer, "bench"), shape == Shape.ONE_LIMIT ? null : "transfers")
                    .allowed();
        }
    }

    /**
     * Bucket4j's JCache proxy manager as its documentation shows it: a bucket per key, one
     * entry-processor call per bucket; two buckets are two calls.
     */
    private static final class Bucket4j extends GridContender {
        private static final Supplier<BucketConfiguration> CONFIG = () -> BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(CAPACITY).refillGreedy(CAPACITY, Duration.ofHours(1))).build();

        private final JCacheProxyManager<String> proxies;
        private final Shape shape;
        private final ConcurrentHashMap<String, BucketProxy> buckets = new ConcurrentHashMap<>();

        Bucket4j(JCacheProxyManager<String> proxies, Shape shape) {
            this.proxies = proxies;
            this.shape = shape;
        }

        @Override
        boolean decide(String customer) {
            boolean plan = bucket("b4j:" + customer + ":p").tryConsume(1);
            if (shape == Shape.ONE_LIMIT) {
                return plan;
            }
            return bucket("b4j:" + customer + ":r:transfers").tryConsume(1) && plan;
        }

        private BucketProxy bucket(String key) {
            return buckets.computeIfAbsent(key, k -> proxies.builder().build(k, CONFIG));
        }
    }
}
