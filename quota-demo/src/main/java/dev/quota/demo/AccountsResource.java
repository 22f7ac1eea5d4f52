package dev.quota.demo;

import dev.quota.jaxrs.Quota;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.core.Context;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /api/v1/accounts/{id}}: one request of the caller's plan. {@code GET .../export}:
 * bound to rule {@code export} by {@link Quota @Quota}, so it costs 10 requests of the plan.
 */
@Path("/api/v1/accounts/{id}")
public final class AccountsResource {

    static final String CSV = "text/csv";

    private final Accounts accounts;

    @Inject
    AccountsResource(Accounts accounts) {
        this.accounts = accounts;
    }

    /** The account as JSON; 404 problem when there is none. */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Account get(@PathParam("id") String id) {
        return account(id);
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
                           @Context HttpHeaders headers, @Context UriInfo uriInfo) {
        boolean csv;
        if (format == null) {
            csv = prefersCsv(headers.getAcceptableMediaTypes());
        } else if (format.equals("csv") || format.equals("json")) {
            csv = format.equals("csv");
        } else {
            return Problem.invalid(List.of(new Problem.FieldError("format", "must be csv or json")),
                    Problems.path(uriInfo)).toResponse();
        }
        Account account = account(id);
        List<Transaction> transactions = accounts.transactions(account);
        if (csv) {
            return Response.ok(TransactionsCsv.write(transactions), CSV + ";charset=UTF-8")
                    .header("Content-Disposition", "attachment; filename=\"" + account.id() + ".csv\"")
                    .build();
        }
        return Response.ok(transactions, MediaType.APPLICATION_JSON).build();
    }

    private Account account(String id) {
        Account account = Accounts.ID.matcher(id).matches() ? accounts.find(id) : null;
        if (account == null) {
            throw new NotFoundException("no account " + id);
        }
        return account;
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
