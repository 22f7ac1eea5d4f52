package dev.quota.demo;

import dev.quota.core.Customer;
import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaService;
import dev.quota.jaxrs.QuotaFeature;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code GET /api/v1/quota}: where the caller stands in each limit of its plan and in the
 * per-customer limits of each rule, after this request (which counts like any other), and how
 * much it may still transfer today in each currency ({@code transfer-amount}).
 */
@Path("/api/v1/quota")
public final class QuotaResource {

    private final QuotaService service;

    @Inject
    QuotaResource(QuotaService service) {
        this.service = service;
    }

    /** The caller's standing; 503 when Redis cannot answer. */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Standing get(@Context ContainerRequestContext request) {
        Customer customer = QuotaFeature.customer(request);
        if (customer == null) {
            throw new IllegalStateException("the quota filter did not run for this request");
        }
        List<LimitView> limits = service.admin().standing(customer).stream().map(LimitView::of).toList();
        List<AmountView> amounts = new ArrayList<>();
        // a config without the amount limits (a test's, an operator's) has nothing to show here
        if (service.config().amounts().containsKey(TransfersResource.AMOUNTS)) {
            for (String currency : TransferRequest.CURRENCIES) {
                for (LimitStatus status : service.admin().amountStanding(customer, TransfersResource.AMOUNTS, currency)) {
                    amounts.add(AmountView.of(currency, status));
                }
            }
        }
        return new Standing(customer.id(), customer.plan(), customer.multiplier(), limits, amounts);
    }

    /**
     * The answer.
     *
     * @param customer   the caller: a customer id, or {@code ip:<address>} for anonymous callers
     * @param plan       the caller's plan
     * @param multiplier applied to every capacity of the plan
     * @param limits     plan limits, then rule limits by rule name
     * @param amounts    today's transfer amounts per currency (EUR, USD, GBP), in minor units;
     *                   empty when the config has no {@code transfer-amount} limits
     */
    public record Standing(String customer, String plan, double multiplier, List<LimitView> limits,
                           List<AmountView> amounts) {
    }

    /**
     * One limit.
     *
     * @param policy       as in the {@code RateLimit} headers, e.g. {@code free-burst}
     * @param capacity     as enforced for this caller (multiplier applied)
     * @param remaining    tokens left
     * @param resetSeconds until the limit is full again, rounded up; 0 when full
     */
    public record LimitView(String policy, long capacity, long remaining, long resetSeconds) {

        static LimitView of(LimitStatus status) {
            return new LimitView(status.policy(), status.limit().capacity(), status.remaining(), status.resetSeconds());
        }
    }

    /**
     * One amount limit in one currency: with capacity 1,000,000 and 125.00 EUR moved today,
     * {@code {"currency":"EUR","policy":"transfer-amount-daily","capacityMinor":1000000,"remainingMinor":987500,...}}.
     *
     * @param currency       ISO 4217 code
     * @param policy         the limit's name, as in a 429 for it
     * @param capacityMinor  how much may move per window, in minor units
     * @param remainingMinor how much may still move, in minor units
     * @param resetSeconds   until the limit is full again, rounded up; 0 when full
     */
    public record AmountView(String currency, String policy, long capacityMinor, long remainingMinor,
                             long resetSeconds) {

        static AmountView of(String currency, LimitStatus status) {
            LimitView limit = LimitView.of(status);
            return new AmountView(currency, limit.policy(), limit.capacity(), limit.remaining(), limit.resetSeconds());
        }
    }
}
