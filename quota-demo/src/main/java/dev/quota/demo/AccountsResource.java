package dev.quota.demo;

import dev.quota.jaxrs.Quota;
import dev.quota.jaxrs.QuotaFeature;
import dev.quota.jaxrs.QuotaMeter;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.StreamingOutput;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /api/v1/accounts/{id}}: one request of the caller's plan. {@code GET .../export}:
 * bound to rule {@code export} by {@link Quota @Quota}, so it costs 10 requests of the plan.
 * {@code GET .../statement}: charged one request per row it wrote, once it has written them. Only
 * the customer who holds the account may read it (403 otherwise, 401 for anonymous callers).
 */
@Path("/api/v1/accounts/{id}")
public final class AccountsResource {

    static final String CSV = "text/csv";
    static final String EVENTS = "text/event-stream";

    private final Accounts accounts;

    @Inject
    AccountsResource(Accounts accounts) {
        this.accounts = accounts;
    }

    /** The account as JSON; 401 for an anonymous caller, 403 for an account the caller does not hold. */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Account get(@PathParam("id") String id, @Context ContainerRequestContext request,
                       @Context UriInfo uriInfo) {
        return account(id, request, uriInfo);
    }

    /**
     * The account's transactions as JSON ({@code ?format=json}, the default) or CSV
     * ({@code ?format=csv}, or {@code Accept: text/csv} without a format).
     */
    @GET
    @Path("export")
    @Quota("export")
    @Produces({MediaType.APPLICATION_JSON, CSV})
    public Response export(@PathParam("id") String id, @QueryParam("format") @Nullable String format,
                           @Context HttpHeaders headers, @Context UriInfo uriInfo,
                           @Context ContainerRequestContext request) {
        boolean csv;
        if (format == null) {
            csv = prefersCsv(headers.getAcceptableMediaTypes());
        } else if (format.equals("csv") || format.equals("json")) {
            csv = format.equals("csv");
        } else {
            return Problem.invalid(List.of(new Problem.FieldError("format", "must be csv or json")),
                    RequestPaths.path(uriInfo)).toResponse();
        }
        Account account = account(id, request, uriInfo);
        List<Transaction> transactions = accounts.transactions(account);
        if (csv) {
            return Response.ok(TransactionsCsv.write(transactions), CSV + ";charset=UTF-8")
                    .header("Content-Disposition", "attachment; filename=\"" + account.id() + ".csv\"")
                    .build();
        }
        return Response.ok(transactions, MediaType.APPLICATION_JSON).build();
    }

    /**
     * The account's statement from {@code from} to {@code to} (ISO dates, at most 366 days): one CSV
     * row per day, streamed, or one server-sent event per day with {@code Accept: text/event-stream}.
     * Bound to rule {@code statement}, whose cost (10) is an estimate: the request is charged 10 when
     * it comes in, and then one token per row while it streams ({@link QuotaMeter}): 37 days cost 37.
     * A customer with fewer tokens left gets exactly as many rows as it can pay for: the CSV ends after
     * the last of them, the event stream with a {@code quota-exhausted} event. Bad dates are a 400, refunded.
     */
    @GET
    @Path("statement")
    @Quota("statement")
    @Produces({CSV, EVENTS})
    public Response statement(@PathParam("id") String id, @QueryParam("from") @Nullable String from,
                              @QueryParam("to") @Nullable String to, @Context UriInfo uriInfo,
                              @Context HttpHeaders headers, @Context ContainerRequestContext request) {
        Account account = account(id, request, uriInfo);
        List<Problem.FieldError> errors = new ArrayList<>(2);
        Statement statement = Statement.of(account, from, to, errors);
        if (statement == null) {
            return Problem.invalid(errors, RequestPaths.path(uriInfo)).toResponse();
        }
        QuotaMeter meter = QuotaFeature.meter(request);
        if (prefersEvents(headers.getAcceptableMediaTypes())) {
            StreamingOutput events = out -> statement.writeEvents(out, meter::add);
            return Response.ok(events, EVENTS).header("Cache-Control", "no-store").build();
        }
        StreamingOutput rows = out -> statement.write(out, meter::add);
        return Response.ok(rows, CSV + ";charset=UTF-8")
                .header("Content-Disposition", "attachment; filename=\"" + account.id() + "-statement.csv\"")
                .build();
    }

    private Account account(String id, ContainerRequestContext request, UriInfo uriInfo) {
        String instance = RequestPaths.path(uriInfo);
        return Owners.owned(accounts, id, Owners.customer(request, instance), instance);
    }

    /** Whether the caller asked for server-sent events by name (curl's {@code *}{@code /*} gets CSV). */
    private static boolean prefersEvents(List<MediaType> acceptable) {
        return !acceptable.isEmpty() && !acceptable.get(0).isWildcardType()
                && acceptable.get(0).isCompatible(MediaType.valueOf(EVENTS));
    }

    /** Whether the first acceptable type is CSV rather than JSON (curl's {@code *}{@code /*} gets JSON). */
    private static boolean prefersCsv(List<MediaType> acceptable) {
        for (MediaType type : acceptable) {
            if (type.isCompatible(MediaType.APPLICATION_JSON_TYPE)) {
                return false;
            }
            if (type.isCompatible(MediaType.valueOf(CSV))) {
                return true;
            }
        }
        return false;
    }
}
