package example;

import dev.quota.cdi.QuotaRequest;
import dev.quota.jaxrs.Quota;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;

@Path("/api/v1/accounts/{id}/imports")
public class ImportResource {
    @Inject QuotaRequest quota;                                       // this request, as quota counted it

    @POST @Quota("import") @Consumes("text/plain")                    // one row a line
    public Response importRows(String rows) {
        quota.settle(rows.lines().count());                           // charged its rows, not the estimate
        return Response.status(201).build();
    }
}
