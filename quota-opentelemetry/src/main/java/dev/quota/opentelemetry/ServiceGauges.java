package dev.quota.opentelemetry;

import dev.quota.core.QuotaService;
import dev.quota.core.TopCustomers;
import dev.quota.core.resilience.CircuitBreakerStore;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.Meter;
import java.util.List;
import java.util.function.Function;

/**
 * The instruments read from a built service at each collection, asking nothing of the store: its
 * breaker's state, its active config version, the tokens it holds in leased batches, and who it
 * is limiting (the counts of the top customers by rank, never who they are: the admin API names
 * them).
 */
final class ServiceGauges {

    static final AttributeKey<String> RANK = AttributeKey.stringKey("quota.rank");

    private ServiceGauges() {
    }

    /** Registers them in {@code meter}; the registrations close them. */
    static List<AutoCloseable> register(Meter meter, QuotaService service) {
        Attributes[] ranks = new Attributes[TopCustomers.SHOWN];
        for (int i = 0; i < ranks.length; i++) {
            ranks[i] = Attributes.of(RANK, Integer.toString(i + 1));
        }
        return List.of(
                meter.upDownCounterBuilder(Names.BREAKER_STATE).setUnit("{state}")
                        .setDescription("1 for the state the store's circuit breaker is in, 0 for the others")
                        .buildWithCallback(measurement -> {
                            CircuitBreakerStore.State now = service.admin().store().breaker();
                            if (now != null) {
                                for (CircuitBreakerStore.State state : CircuitBreakerStore.State.values()) {
                                    measurement.record(state == now ? 1 : 0,
                                            Attributes.of(Names.BREAKER, Names.breaker(state)));
                                }
                            }
                        }),
                meter.upDownCounterBuilder(Names.LEASED_TOKENS_HELD).setUnit("{token}")
                        .setDescription("Tokens this instance holds in leased batches of hot buckets now")
                        .buildWithCallback(measurement -> measurement.record(service.leasedTokens().held())),
                meter.gaugeBuilder(Names.CONFIG_VERSION).ofLongs().setUnit("{version}")
                        .setDescription("The active config version")
                        .buildWithCallback(measurement -> measurement.record(service.config().version())),
                top(meter, service, Names.TOP_REFUSALS, TopCustomers::byRefusals, ranks,
                        "Refusals of the customer at this rank over the last minutes, on this instance", "{refusal}"),
                top(meter, service, Names.TOP_SPENDING, TopCustomers::bySpending, ranks,
                        "Plan tokens spent by the customer at this rank over the last minutes, on this instance",
                        "{token}"));
    }

    private static AutoCloseable top(Meter meter, QuotaService service, String name,
                                     Function<TopCustomers, List<TopCustomers.Entry>> ranking, Attributes[] ranks,
                                     String description, String unit) {
        return meter.gaugeBuilder(name).ofLongs().setUnit(unit).setDescription(description)
                .buildWithCallback(measurement -> {
                    List<TopCustomers.Entry> entries = ranking.apply(service.admin().topCustomers());
                    for (int i = 0; i < ranks.length; i++) {
                        measurement.record(i < entries.size() ? entries.get(i).count() : 0, ranks[i]);
                    }
                });
    }
}
