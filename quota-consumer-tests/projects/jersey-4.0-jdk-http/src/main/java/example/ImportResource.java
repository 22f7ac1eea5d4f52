package example;

import dev.quota.jaxrs.Quota;
import dev.quota.jaxrs.SettledCost;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;

@Path("/api/v1/accounts/{id}/imports")
public class ImportResource {
    @POST @Quota("import") @SettledCost @Consumes("text/plain")       // one row a line
    public Response importRows(String rows) {
        return Response.status(201).header("Quota-Cost", rows.lines().count()).build();
    }
}
