package dev.quota.jaxrs;

import dev.quota.core.Amount;
import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Objects;

/** The resources the tests call. */
final class TestResources {

    private TestResources() {
    }

    /** Plan limits only, a regex-constrained parameter, and an export bound by annotation. */
    @Path("/api/v1/accounts/")
    public static final class Accounts {

        @GET
        @Path("{id: [0-9]+}")
        public String account(@PathParam("id") String id) {
            return "account " + id;
        }

        @GET
        @Path("/{id: [0-9]{1,9}}/export/")
        @Quota("export")
        public String export(@PathParam("id") String id) {
            return "export " + id;
        }

        @GET
        @Path("{id}/statements")
        public String statements(@PathParam("id") String id) {
            return "statements " + id;
        }

        @GET
        @Path("ping")
        @Unlimited
        public String ping() {
            return "pong";
        }
    }

    /** Bound to rule {@code transfers} by the config's {@code matches}, not by annotation. */
    @Path("api/v1/transfers/")
    public static final class Transfers {

        @POST
        public String transfer() {
            return "transferred";
        }
    }

    /** A probe kept out of enforcement as a whole, and one method of a limited class kept out. */
    @Path("/health")
    @Unlimited
    public static final class Health {

        @GET
        public String health() {
            return "ok";
        }
    }

    /** Tells who the quota filter counted the request against. */
    @Path("/api/v1/whoami")
    public static final class WhoAmI {

        @GET
        public String whoami(@Context ContainerRequestContext request) {
            Customer customer = Objects.requireNonNull(QuotaFeature.customer(request), "customer");
            return customer.id() + " on " + customer.plan();
        }
    }

    /**
     * An amount decided with the request ({@link AmountLimit}), from a JSON body Jackson reads:
     * {@code {"currency":"EUR","amountMinor":12500}}. {@code POST .../declined} is refused by the
     * resource itself (409), as a bank declines a transfer.
     */
    @Path("/api/v1/payouts")
    public static final class Payouts {

        /** The body: what and how much. */
        public record Payout(String currency, long amountMinor) implements QuotaAmount {
            @Override
            public String quotaQualifier() {
                return currency;
            }

            @Override
            public long quotaAmount() {
                return amountMinor;
            }
        }

        @POST
        @AmountLimit("transfer-amount")
        @Consumes(MediaType.APPLICATION_JSON)
        public Response pay(Payout payout) {
            return Response.status(201).entity("paid " + payout.amountMinor() + " " + payout.currency()).build();
        }

        @POST
        @Path("declined")
        @AmountLimit("transfer-amount")
        @Consumes(MediaType.APPLICATION_JSON)
        public Response decline(Payout payout) {
            return Response.status(409).entity("declined").build();
        }
    }

    /** Takes an amount programmatically and throws when it is over the limit. */
    @Path("/api/v1/payments")
    public static final class Payments {

        /** The application property holding the {@link QuotaService}. */
        static final String SERVICE = "test.quota.service";

        @POST
        public String pay(@QueryParam("cents") long cents, @Context ContainerRequestContext request,
                          @Context Configuration configuration) {
            QuotaService service = (QuotaService) configuration.getProperty(SERVICE);
            Customer customer = Objects.requireNonNull(QuotaFeature.customer(request), "customer");
            QuotaDecision d = service.consumeAmount(customer, new Amount("transfer-amount", "EUR", cents));
            if (!d.allowed()) {
                throw new QuotaExceededException(d);
            }
            return "paid " + cents;
        }
    }
}
