package dev.quota.demo;

import dev.quota.core.Customer;
import dev.quota.jaxrs.AmountLimit;
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

/**
 * {@code POST /api/v1/transfers}: rule {@code transfers} applies through its {@code match} in the
 * config (10 per minute per customer, 500 per second in total), and the amount counts against the
 * customer's daily {@code transfer-amount} in the transfer's currency ({@link AmountLimit}): the
 * request limits and the amount are decided together, once the body is read. The debited account
 * must be the caller's (403 otherwise), and the transfer is in its currency; a transfer refused here
 * gets its transfer count and amount back, not its request token.
 */
@Path("/api/v1/transfers")
public final class TransfersResource {

    /** The amount limits of the config that transfers draw on. */
    static final String AMOUNTS = "transfer-amount";

    private final Accounts accounts;
    private final Transfers transfers;

    @Inject
    TransfersResource(Accounts accounts, Transfers transfers) {
        this.accounts = accounts;
        this.transfers = transfers;
    }

    /** 201 with the accepted transfer; 400 listing every bad field; 403 for another's account; 429 over a limit. */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @AmountLimit(AMOUNTS)
    public Response create(TransferRequest transfer, @Context ContainerRequestContext request,
                           @Context UriInfo uriInfo) {
        String instance = RequestPaths.path(uriInfo);
        Customer customer = Owners.customer(request, instance);
        Owners.owned(accounts, transfer.from(), customer, instance);
        Transfer accepted = transfers.accept(customer.id(), transfer);
        return Response.created(uriInfo.getAbsolutePathBuilder().path(accepted.id()).build())
                .entity(accepted)
                .build();
    }

    /** A transfer the caller made on this instance; 404 for any other id. */
    @GET
    @Path("{id}")
    @Produces(MediaType.APPLICATION_JSON)
    public Transfer get(@PathParam("id") String id, @Context ContainerRequestContext request,
                        @Context UriInfo uriInfo) {
        Transfer transfer = transfers.find(Owners.customer(request, RequestPaths.path(uriInfo)).id(), id);
        if (transfer == null) {
            throw new NotFoundException("no transfer " + id);
        }
        return transfer;
    }
}
