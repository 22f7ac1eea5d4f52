package dev.quota.core;

import java.time.Duration;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.List;

/** Small configs built in code for tests. */
public final class Configs {

    private Configs() {
    }

    public static Limit greedy(String name, long capacity, long tokens, Duration period) {
        return new Limit(name, capacity, Refill.greedy(tokens, period));
    }

    public static Limit daily(String name, long capacity, String zone) {
        return new Limit(name, capacity, Refill.calendar(ChronoUnit.DAYS, ZoneId.of(zone)));
    }

    public static Limit calendar(String name, long capacity, ChronoUnit unit, String zone) {
        return new Limit(name, capacity, Refill.calendar(unit, ZoneId.of(zone)));
    }

    public static Plan plan(String name, Limit... limits) {
        return Plan.of(name, List.of(limits), FailurePolicy.LOCAL);
    }

    public static QuotaConfig config(List<Plan> plans, List<Rule> rules, List<AmountLimits> amounts) {
        QuotaConfig.Builder config = QuotaConfig.builder();
        plans.forEach(config::plan);
        rules.forEach(config::rule);
        amounts.forEach(config::amounts);
        return config.build();
    }

    public static QuotaConfig config(Plan... plans) {
        return config(List.of(plans), List.of(), List.of());
    }

    /** {@code base} with another master switch, global mode and allow-list. */
    public static QuotaConfig operated(QuotaConfig base, boolean enabled, Mode mode, AllowList allow) {
        return base.toBuilder().enabled(enabled).mode(mode).allow(allow).build();
    }
}
