package example;

import dev.quota.jaxrs.AmountLimit;
import dev.quota.jaxrs.QuotaAmount;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;

@Path("/api/v1/transfers")
public class TransferResource {
    public record Transfer(String currency, long amountMinor) implements QuotaAmount {
        public String quotaQualifier() { return currency; }               // each currency has its own limit
        public long quotaAmount() { return amountMinor; }                 // in cents: 600000 is 6,000.00
    }

    @POST @AmountLimit("transfer-amount") @Consumes("application/json")
    public Response transfer(Transfer transfer) { return Response.status(201).build(); }
}
