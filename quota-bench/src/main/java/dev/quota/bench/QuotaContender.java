package dev.quota.bench;

import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Identity;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.redis.RedisStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

/**
 * This module: {@link QuotaService#decide} on plan {@code bench}, over a {@link RedisStore} on the
 * instance's client, exactly as an application calls it (keys hashed, statuses built, failure
 * policy CLOSED so a store failure shows as an error, not as an admission).
 */
final class QuotaContender implements Contender {

    static final String PLAN = "bench";

    private final QuotaService service;
    private final String namespace;
    private volatile Customer[] customers = new Customer[0];

    /**
     * @param rejectLocallyFor the store's {@code rejectLocallyFor}, or null for its default; zero asks
     *                         Redis for every request
     * @param reuseWrittenState the store's {@code reuseWrittenState}
     */
    QuotaContender(RedissonClient client, LimitSpec limit, String namespace, @Nullable Duration rejectLocallyFor,
                   boolean reuseWrittenState) {
        var builder = RedisStore.builder().client(client).timeout(Instance.TIMEOUT)
                .reuseWrittenState(reuseWrittenState);
        if (rejectLocallyFor != null) {
            builder.rejectLocallyFor(rejectLocallyFor);
        }
        RedisStore store = builder.build();
        this.service = QuotaService.builder().store(store).config(config(limit)).build();
        this.namespace = namespace + ":q:";
    }

    static QuotaConfig config(LimitSpec limit) {
        Plan plan = new Plan(PLAN, List.of(new Limit("burst", limit.capacity(),
                Refill.greedy(limit.capacity(), limit.period()))), FailurePolicy.CLOSED);
        return new QuotaConfig(0, Identity.DEFAULT, Map.of(PLAN, plan), Map.of(), Map.of(), Map.of(), Map.of(),
                List.of());
    }

    @Override
    public void prepare(int count) {
        Customer[] created = new Customer[count];
        for (int i = 0; i < count; i++) {
            created[i] = Customer.of(namespace + i, PLAN);
        }
        customers = created;
    }

    @Override
    public Outcome acquire(int customer) {
        try {
            QuotaDecision decision = service.decide(customers[customer], null);
            switch (decision.outcome()) {
                case ALLOWED:
                    return Outcome.ADMITTED;
                case REJECTED:
                    return Outcome.REJECTED;
                default:
                    return Outcome.ERROR;
            }
        } catch (RuntimeException e) {
            return Outcome.ERROR;
        }
    }

    @Override
    public String keyMarker(int customer) {
        return service.admin().bucketKeys(Customer.of(namespace + customer, PLAN)).get(0);
    }

    @Override
    public void close() {
        service.close(); // closes the store; the client belongs to the instance
    }
}
