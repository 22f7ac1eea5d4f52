package dev.quota.core.resilience;

import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.Refill;
import java.util.List;

/** A config of one plan with one limit named {@code burst}, for the resilience tests. */
public final class OnePlan {

    private OnePlan() {
    }

    /** Plan {@code plan}: one limit of {@code capacity} refilled by {@code refill}, under {@code policy}. */
    public static QuotaConfig config(String plan, long capacity, Refill refill, FailurePolicy policy) {
        Plan p = Plan.of(plan, List.of(new Limit("burst", capacity, refill)), policy);
        return QuotaConfig.builder().plan(p).build();
    }
}
