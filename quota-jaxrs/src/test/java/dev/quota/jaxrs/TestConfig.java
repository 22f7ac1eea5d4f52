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
import dev.quota.core.Refill;
import dev.quota.core.Rule;
import dev.quota.core.config.ApiKeys;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;

/** The plans most tests share, on {@link QuotaConfig.Builder}, with API keys given in plain text. */
public final class TestConfig {

    /** Noon UTC, so a calendar day has 43,200 s left. */
    public static final Instant NOON = Instant.parse("2025-03-10T12:00:00Z");

    /** The key of customer {@code acme} on plan {@code free}. */
    public static final String ACME_KEY = "acme-key-0123456789";

    /** Burst 20, then 10 per second. */
    public static final Limit BURST = new Limit("burst", 20, Refill.greedy(10, Duration.ofSeconds(1)));

    /** 1,000 per calendar day in UTC. */
    public static final Limit DAILY = new Limit("daily", 1000, Refill.calendar(ChronoUnit.DAYS, ZoneOffset.UTC));

    private final QuotaConfig.Builder builder = QuotaConfig.builder().version(1);

    /** Plan {@code free} (burst 20 at 10/s), plan {@code anonymous} (5 per minute), customer acme on free. */
    public static TestConfig standard() {
        return new TestConfig()
                .plan("free", BURST)
                .plan("anonymous", new Limit("minute", 5, Refill.greedy(5, Duration.ofMinutes(1))))
                .customer("acme", "free", ACME_KEY);
    }

    /** A plan that answers 503 while the store is down. */
    public TestConfig plan(String name, Limit... limits) {
        return plan(Plan.of(name, List.of(limits), FailurePolicy.CLOSED));
    }

    public TestConfig plan(Plan plan) {
        builder.plan(plan);
        return this;
    }

    public TestConfig rule(Rule rule) {
        builder.rule(rule);
        return this;
    }

    public TestConfig amounts(AmountLimits limits) {
        builder.amounts(limits);
        return this;
    }

    public TestConfig customer(String id, String plan, String apiKey) {
        return customer(Customer.of(id, plan), apiKey);
    }

    public TestConfig customer(Customer customer, String apiKey) {
        builder.customer(customer).apiKey(ApiKeys.sha256Hex(apiKey), customer.id());
        return this;
    }

    public TestConfig identity(Identity identity) {
        builder.identity(identity);
        return this;
    }

    public TestConfig enabled(boolean enabled) {
        builder.enabled(enabled);
        return this;
    }

    public TestConfig mode(Mode mode) {
        builder.mode(mode);
        return this;
    }

    public TestConfig allow(AllowList allow) {
        builder.allow(allow);
        return this;
    }

    public TestConfig streams(dev.quota.core.Streams streams) {
        builder.streams(streams);
        return this;
    }

    public QuotaConfig build() {
        return builder.build();
    }
}
