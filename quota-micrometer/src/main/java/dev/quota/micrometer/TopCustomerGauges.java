package dev.quota.micrometer;

import dev.quota.core.QuotaAdmin;
import dev.quota.core.TopCustomers;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Who is being limited, as gauges with a bounded number of series: the counts of the top
 * {@value TopCustomers#SHOWN} customers of {@link QuotaAdmin#topCustomers()}, labelled by rank,
 * never by customer. Register once per service, after building it:
 * {@code TopCustomerGauges.register(registry, service.admin())}.
 *
 * <table>
 *   <caption>Meters (Prometheus names in brackets)</caption>
 *   <tr><td>{@code quota.top.refusals} gauge [{@code quota_top_refusals}]</td>
 *       <td>tag {@code rank} ({@code 1} to {@code 10}): refusals of the customer at that rank over the
 *       current minute and the 5 before it; 0 when fewer customers were refused</td></tr>
 *   <tr><td>{@code quota.top.spending} gauge [{@code quota_top_spending}]</td>
 *       <td>tag {@code rank}: plan tokens the customer at that rank spent on admitted requests over
 *       the same window</td></tr>
 * </table>
 *
 * <p>20 series per instance, whatever the number of customers. Which customer holds a rank is not
 * a label (a label per customer would grow without bound, and ids may be personal data): the admin
 * API's {@code GET /admin/top-customers} names them. Each instance counts its own decisions, so
 * compare instances with {@code max by (rank)}, never {@code sum by (rank)}: rank 1 of two
 * instances may be two different customers.
 */
public final class TopCustomerGauges {

    private TopCustomerGauges() {
    }

    /**
     * Registers the 20 gauges; each reads {@code admin} when the registry is scraped.
     *
     * @throws NullPointerException if an argument is null
     */
    public static void register(MeterRegistry registry, QuotaAdmin admin) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(admin, "admin");
        for (int rank = 1; rank <= TopCustomers.SHOWN; rank++) {
            gauge(registry, admin, "quota.top.refusals", rank, TopCustomers::byRefusals,
                    "Refusals of the customer at this rank over the last minutes, on this instance");
            gauge(registry, admin, "quota.top.spending", rank, TopCustomers::bySpending,
                    "Plan tokens spent by the customer at this rank over the last minutes, on this instance");
        }
    }

    private static void gauge(MeterRegistry registry, QuotaAdmin admin, String name, int rank,
                              Function<TopCustomers, List<TopCustomers.Entry>> ranking, String description) {
        int index = rank - 1;
        Gauge.builder(name, admin, a -> {
                    List<TopCustomers.Entry> entries = ranking.apply(a.topCustomers());
                    return index < entries.size() ? entries.get(index).count() : 0;
                })
                .description(description)
                .tag("rank", Integer.toString(rank))
                .strongReference(true)
                .register(registry);
    }
}
