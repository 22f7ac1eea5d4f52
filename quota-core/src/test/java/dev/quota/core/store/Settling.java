package dev.quota.core.store;

import dev.quota.core.Configs;
import dev.quota.core.Customer;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.Rule;
import dev.quota.core.spi.QuotaStore;
import dev.quota.testkit.MutableClock;
import java.time.Duration;
import java.util.List;

/**
 * A service for settle tests on any store: plan {@code metered} (100 tokens, 100 an hour: one
 * every 36 s) and rule {@code export} whose cost, 10, is the estimate a settle corrects.
 */
final class Settling {

    private Settling() {
    }

    static QuotaService service(QuotaStore store, MutableClock clock, String customerId) {
        QuotaConfig config = Configs.config(List.of(Configs.plan("metered",
                        Configs.greedy("burst", 100, 100, Duration.ofHours(1)))),
                List.of(Rule.builder("export").cost(10).build()), List.of());
        return QuotaService.builder().store(store).config(config).clock(clock).build();
    }

    /** What the customer's plan bucket holds now, by the admin standing. */
    static long planRemaining(QuotaService service, String customerId) {
        return service.admin().standing(Customer.of(customerId, "metered")).get(0).remaining();
    }
}
