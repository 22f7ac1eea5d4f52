package dev.quota.demo;

import dev.quota.core.Amount;
import dev.quota.core.Customer;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaService;
import dev.quota.jaxrs.QuotaExceededException;
import dev.quota.jaxrs.QuotaFeature;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.io.IOException;
import java.io.InputStream;

/**
 * {@code POST /api/v1/transfers}: rule {@code transfers} applies through its {@code match} in the
 * config (10 per minute per customer, 500 per second in total). Once the body is valid, the
 * amount is taken from the customer's daily {@code transfer-amount} for its currency; a transfer
 * that would exceed it is answered 429 naming that limit.
 */
@Path("/api/v1/transfers")
public final class TransfersResource {

    /** The amount limits of the config that transfers draw on. */
    static final String AMOUNTS = "transfer-amount";

    private final QuotaService service;
    private final Accounts accounts;
    private final Transfers transfers;

    @Inject
    TransfersResource(QuotaService service, Accounts accounts, Transfers transfers) {
        this.service = service;
        this.accounts = accounts;
        this.transfers = transfers;
    }

    /** 201 with the accepted transfer; 400 listing every bad field; 429 over the amount limit. */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response create(InputStream body, @Context ContainerRequestContext request, @Context UriInfo uriInfo)
            throws IOException {
        Customer customer = customer(request);
        TransferRequest.Checked checked = TransferRequest.read(body, accounts);
        TransferRequest transfer = checked.request();
        if (transfer == null) {
            return Problem.invalid(checked.errors(), Problems.path(uriInfo)).toResponse();
        }
        QuotaDecision decision = service.consumeAmount(customer, new Amount(AMOUNTS, transfer.currency(), transfer.amountMinor()));
        if (!decision.allowed()) {
            throw new QuotaExceededException(decision);
        }
        Transfer accepted = transfers.accept(customer.id(), transfer);
        return Response.created(uriInfo.getAbsolutePathBuilder().path(accepted.id()).build())
                .entity(accepted)
                .build();
    }

    /** A transfer the caller made on this instance; 404 for any other id. */
    @GET
    @Path("{id}")
    @Produces(MediaType.APPLICATION_JSON)
    public Transfer get(@PathParam("id") String id, @Context ContainerRequestContext request) {
        Transfer transfer = transfers.find(customer(request).id(), id);
        if (transfer == null) {
            throw new NotFoundException("no transfer " + id);
        }
        return transfer;
    }

    private static Customer customer(ContainerRequestContext request) {
        Customer customer = QuotaFeature.customer(request);
        if (customer == null) {
            throw new IllegalStateException("the quota filter did not run for this request");
        }
        return customer;
    }
}
