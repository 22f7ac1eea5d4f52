package dev.quota.core;

import java.time.Duration;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
        return new Plan(name, List.of(limits), FailurePolicy.LOCAL);
    }

    public static QuotaConfig config(List<Plan> plans, List<Rule> rules, List<AmountLimits> amounts) {
        Map<String, Plan> p = new HashMap<>();
        plans.forEach(x -> p.put(x.name(), x));
        Map<String, Rule> r = new HashMap<>();
        rules.forEach(x -> r.put(x.name(), x));
        Map<String, AmountLimits> a = new HashMap<>();
        amounts.forEach(x -> a.put(x.name(), x));
        return new QuotaConfig(0, Identity.DEFAULT, p, r, a, Map.of(), Map.of(), List.of());
    }

    public static QuotaConfig config(Plan... plans) {
        return config(List.of(plans), List.of(), List.of());
    }

    /** {@code base} with another master switch, global mode and allow-list. */
    public static QuotaConfig operated(QuotaConfig base, boolean enabled, Mode mode, AllowList allow) {
        return new QuotaConfig(base.version(), base.identity(), base.plans(), base.rules(), base.amounts(),
                base.customers(), base.apiKeys(), base.warnings(), enabled, mode, allow);
    }
}
