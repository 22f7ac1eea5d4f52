package example;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.StreamingOutput;
import java.util.Arrays;

/** A resource of the service's own, beside the README's: a large download (32 MB), limited by the caller's plan like any other. */
@Path("/api/v1/accounts/{id}/archive")
public class ArchiveResource {
    @GET @Produces("application/octet-stream")
    public StreamingOutput archive() {
        return out -> {
            byte[] block = new byte[8192];
            Arrays.fill(block, (byte) 'x');
            for (int i = 0; i < 4096; i++) {
                out.write(block);
            }
        };
    }
}
