package example;

import dev.quota.jaxrs.Quota;
import dev.quota.jaxrs.QuotaFeature;
import dev.quota.jaxrs.QuotaMeter;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.StreamingOutput;
import java.nio.charset.StandardCharsets;

@Path("/api/v1/accounts/{id}/statement")
public class StatementResource {
    @GET @Quota("statement") @Produces("text/csv")                    // rule "statement": 2 on arrival
    public StreamingOutput statement(@QueryParam("days") int days, @Context ContainerRequestContext request) {
        QuotaMeter meter = QuotaFeature.meter(request);               // then a token a row, as it streams
        return out -> {
            out.write("day,balance\n".getBytes(StandardCharsets.US_ASCII));
            for (int day = 1; day <= days; day++) {
                out.write((day + ",100.00\n").getBytes(StandardCharsets.US_ASCII));
                if (!meter.add(1)) {
                    break;                                            // the customer cannot pay another row
                }
            }
        };
    }
}
