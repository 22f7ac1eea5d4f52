package dev.quota.jaxrs;

import dev.quota.core.AllowList;
import dev.quota.core.AmountLimits;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Identity;
import dev.quota.core.Limit;
import dev.quota.core.Mode;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Builds a {@link QuotaConfig} in code, with the plans most tests share. */
final class TestConfig {

    /** Noon UTC, so a calendar day has 43,200 s left. */
    static final Instant NOON = Instant.parse("2025-03-10T12:00:00Z");

    /** The key of customer {@code acme} on plan {@code free}. */
    static final String ACME_KEY = "acme-key-0123456789";

    /** Burst 20, then 10 per second. */
    static final Limit BURST = new Limit("burst", 20, Refill.greedy(10, Duration.ofSeconds(1)));

    /** 1,000 per calendar day in UTC. */
    static final Limit DAILY = new Limit("daily", 1000, Refill.calendar(ChronoUnit.DAYS, ZoneOffset.UTC));

    private Identity identity = Identity.DEFAULT;
    private boolean enabled = true;
    private Mode mode = Mode.ENFORCE;
    private AllowList allow = AllowList.NONE;
    private final Map<String, Plan> plans = new HashMap<>();
    private final Map<String, Rule> rules = new HashMap<>();
    private final Map<String, AmountLimits> amounts = new HashMap<>();
    private final Map<String, Customer> customers = new HashMap<>();
    private final Map<String, String> apiKeys = new HashMap<>();

    /** Plan {@code free} (burst 20 at 10/s), plan {@code anonymous} (5 per minute), customer acme on free. */
    static TestConfig standard() {
        return new TestConfig()
                .plan("free", BURST)
                .plan("anonymous", new Limit("minute", 5, Refill.greedy(5, Duration.ofMinutes(1))))
                .customer("acme", "free", ACME_KEY);
    }

    TestConfig plan(String name, Limit... limits) {
        plans.put(name, new Plan(name, List.of(limits), FailurePolicy.CLOSED));
        return this;
    }

    TestConfig plan(Plan plan) {
        plans.put(plan.name(), plan);
        return this;
    }

    TestConfig rule(Rule rule) {
        rules.put(rule.name(), rule);
        return this;
    }

    TestConfig amounts(AmountLimits limits) {
        amounts.put(limits.name(), limits);
        return this;
    }

    TestConfig customer(String id, String plan, String apiKey) {
        customers.put(id, Customer.of(id, plan));
        apiKeys.put(QuotaService.sha256Hex(apiKey), id);
        return this;
    }

    TestConfig customer(Customer customer, String apiKey) {
        customers.put(customer.id(), customer);
        apiKeys.put(QuotaService.sha256Hex(apiKey), customer.id());
        return this;
    }

    TestConfig identity(Identity identity) {
        this.identity = identity;
        return this;
    }

    TestConfig enabled(boolean enabled) {
        this.enabled = enabled;
        return this;
    }

    TestConfig mode(Mode mode) {
        this.mode = mode;
        return this;
    }

    TestConfig allow(AllowList allow) {
        this.allow = allow;
        return this;
    }

    QuotaConfig build() {
        return new QuotaConfig(1, identity, plans, rules, amounts, customers, apiKeys, List.of(), enabled, mode,
                allow);
    }
}
