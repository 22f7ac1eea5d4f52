package dev.quota.demo;

import dev.quota.core.Customer;
import dev.quota.core.InFlightStanding;
import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaService;
import dev.quota.core.TopCustomers;
import dev.quota.jaxrs.QuotaFeature;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /api/v1/quota}: where the caller stands in each limit of its plan and in the
 * per-customer limits of each rule, how much it may still transfer today in each currency
 * ({@code transfer-amount}), and how often it was refused lately.
 *
 * <p>The call costs one request of the caller's plan, like any other, and the figures it shows
 * already count it: a caller with 18 requests left before asking reads 17. So polling it cannot
 * be a way around the limits, and it never shows more than the next request gets. When the plan
 * is exhausted, it is answered 429 like any request, and that answer's {@code RateLimit} and
 * {@code Retry-After} headers say what this view would.
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
        TopCustomers.Entry refusals = service.admin().recentRefusals(customer);
        List<InFlightView> inFlight = service.admin().inFlight(customer).stream().map(InFlightView::of).toList();
        return new Standing(customer.id(), customer.plan(), customer.multiplier(), limits, inFlight, amounts,
                new RefusalsView(refusals.count(), refusals.atLeast(), service.admin().topCustomers().since().toString(),
                        "instance"));
    }

    /**
     * The answer.
     *
     * @param customer   the caller: a customer id, or {@code ip:<address>} for anonymous callers
     * @param plan       the caller's plan
     * @param multiplier applied to every capacity of the plan
     * @param limits     plan limits, then rule limits by rule name
     * @param inFlight   in-flight limits (requests running at once), the plan's then each rule's:
     *                   this request holds one of the plan's, if it has one
     * @param amounts    today's transfer amounts per currency (EUR, USD, GBP), in minor units;
     *                   empty when the config has no {@code transfer-amount} limits
     * @param recentRefusals how often the instance that answers refused the caller lately
     */
    public record Standing(String customer, String plan, double multiplier, List<LimitView> limits,
                           List<InFlightView> inFlight, List<AmountView> amounts, RefusalsView recentRefusals) {
    }

    /**
     * One in-flight limit across every instance: with two reports running,
     * {@code {"policy":"reports-in-flight","held":2,"limit":2,"leaseTimeoutSeconds":120,
     * "oldestDeadline":"2026-12-03T10:02:00Z"}}.
     *
     * @param policy              as in a 429 {@code too-many-in-flight} for it
     * @param held                requests of the caller running now
     * @param limit               how many may run at once
     * @param leaseTimeoutSeconds how long a request's slot stays held if its instance dies
     * @param oldestDeadline      when the oldest held slot comes back on its own, ISO-8601; null when none is held
     */
    public record InFlightView(String policy, long held, long limit, long leaseTimeoutSeconds,
                               @Nullable String oldestDeadline) {

        static InFlightView of(InFlightStanding standing) {
            Instant oldest = standing.oldestDeadline();
            return new InFlightView(standing.policy(), standing.held(), standing.limit(),
                    standing.leaseTimeout().toSeconds(), oldest == null ? null : oldest.toString());
        }
    }

    /**
     * The caller's refusals (429 for a limit) over the current minute and the 5 before it, as
     * counted by the instance that answers: {@code {"count":2,"atLeast":2,"since":"2026-01-12T08:55:00Z",
     * "scope":"instance"}}. Behind a load balancer each instance counts the refusals it answered.
     *
     * @param count   refusals, never fewer than the true number
     * @param atLeast refusals certainly made; equal to {@code count} unless this instance refuses more
     *                than 100 callers a minute
     * @param since   the start of the window, ISO-8601
     * @param scope   {@code instance}: this instance's count
     */
    public record RefusalsView(long count, long atLeast, String since, String scope) {
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
