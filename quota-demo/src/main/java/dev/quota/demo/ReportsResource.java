package dev.quota.demo;

import dev.quota.jaxrs.Quota;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /api/v1/reports/slow?seconds=10}: a report that takes as long as asked (0 to 60 s,
 * default 10), on rule {@code reports}, which lets {@code concurrency: 2} of one caller's reports
 * run at once. Where an in-flight limit can be watched with curl: start two, the third is answered
 * {@code 429 too-many-in-flight} until one ends, and {@code GET /api/v1/quota} and the admin
 * standing show {@code reports-in-flight} held 2 of 2 meanwhile.
 */
@Path("/api/v1/reports/slow")
public final class ReportsResource {

    /** The longest report: 60 s. */
    static final int MAX_SECONDS = 60;

    /** The report once it has taken its time: {@code {"seconds":10,"report":"done"}}. */
    @GET
    @Quota("reports")
    @Produces(MediaType.APPLICATION_JSON)
    public Response get(@QueryParam("seconds") @Nullable String seconds, @Context UriInfo uriInfo)
            throws InterruptedException {
        int wait;
        try {
            wait = seconds == null ? 10 : Integer.parseInt(seconds);
        } catch (NumberFormatException e) {
            wait = -1;
        }
        if (wait < 0 || wait > MAX_SECONDS) {
            return Problem.invalid(List.of(new Problem.FieldError("seconds", "must be 0 to " + MAX_SECONDS)),
                    RequestPaths.path(uriInfo)).toResponse();
        }
        // the running request the in-flight limit counts: it holds its lease until it has answered
        Thread.sleep(wait * 1000L);
        return Response.ok(new Report(wait, "done")).build();
    }

    /**
     * The report.
     *
     * @param seconds how long it took
     * @param report  {@code done}
     */
    public record Report(int seconds, String report) {
    }
}
