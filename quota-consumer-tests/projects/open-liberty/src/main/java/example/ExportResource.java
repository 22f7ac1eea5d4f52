package example;

import dev.quota.jaxrs.Quota;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;

@Path("/api/v1/accounts/{id}/export")
public class ExportResource {
    @GET @Quota("export")                                             // rule "export": cost 10
    public String export(@PathParam("id") String id) { return "export of account " + id; }
}
