package dev.quota.example;

import dev.quota.jaxrs.AmountLimit;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import java.util.UUID;

/**
 * {@code POST /api/v1/transfers}: rule {@code transfers} by its {@code match} in the plans file,
 * and the amount against the customer's daily {@code transfer-amount} in the transfer's currency
 * ({@link AmountLimit}), decided together once the body is read.
 */
@Path("v1/transfers")
@RequestScoped
public class TransfersResource {

    /** 201 with the accepted transfer; 429 over a limit; 422 for an amount above the whole daily limit. */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @AmountLimit("transfer-amount")
    public Response create(TransferRequest transfer) {
        String id = "tr_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
        return Response.status(Response.Status.CREATED)
                .entity(Map.of("id", id, "from", transfer.getFrom(), "to", transfer.getTo(),
                        "amountMinor", transfer.getAmountMinor(), "currency", transfer.getCurrency(),
                        "status", "accepted"))
                .build();
    }
}
