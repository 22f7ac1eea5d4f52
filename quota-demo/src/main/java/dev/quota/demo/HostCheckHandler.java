package dev.quota.demo;

import org.glassfish.grizzly.http.Protocol;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;
import org.jspecify.annotations.Nullable;

/**
 * The API server's one Grizzly handler: refuses a request whose {@code Host} header is malformed
 * with a 400 problem, and hands every other request to the Jersey application.
 *
 * <p>Before Jersey on purpose: Jersey's Grizzly container builds the request's base URI from the
 * {@code Host} header ({@code GrizzlyHttpContainer.getBaseUri}, through Grizzly's
 * {@code Request.getServerName()}), before any filter or exception mapper runs. Grizzly throws an
 * {@code IllegalStateException} for a port it cannot parse ({@code Host: ::1:32080},
 * {@code host:-1}, {@code host:+80}), which became a bare 500, and other bad values failed there
 * as a malformed request URI. What {@link HostHeader} accepts, both parse.
 *
 * <p>HTTP/1.1 requires exactly one {@code Host} header (RFC 9112, section 3.2): none is refused by
 * Grizzly itself, two or more here. HTTP/1.0 may leave it out. Over HTTP/2 the host is the
 * {@code :authority} pseudo-header, which Grizzly hands on as the {@code Host} header (a
 * {@code host} field sent beside it is dropped), checked the same way; a request without one is
 * malformed (RFC 9113, section 8.3.1) and refused here.
 */
final class HostCheckHandler extends HttpHandler {

    private final HttpHandler api;

    HostCheckHandler(HttpHandler api) {
        super("host-check");
        this.api = api;
    }

    @Override
    public void service(Request request, Response response) throws Exception {
        String problem = problem(request);
        if (problem != null) {
            GrizzlyProblems.send(response, new Problem("about:blank", "Bad Request", 400, problem, null, null));
            return;
        }
        api.service(request, response);
    }

    /** What is wrong with the request's {@code Host} headers, or null when nothing is. */
    static @Nullable String problem(Request request) {
        String host = null;
        int count = 0;
        for (String value : request.getHeaders("Host")) {
            host = value;
            count++;
        }
        if (count > 1) {
            return "The request has " + count + " Host headers; send exactly one.";
        }
        if (count == 0) {
            Protocol protocol = request.getProtocol();
            return protocol == Protocol.HTTP_1_1 ? "The request has no Host header; send exactly one."
                    : protocol == Protocol.HTTP_2_0 ? "The request has no :authority; send the host in it." : null;
        }
        return HostHeader.valid(host) ? null : "The Host header is malformed: send a host name, an IPv4 address or a"
                + " bracketed IPv6 address, optionally with a port up to 65535.";
    }

    /** Starts the Jersey application with the server. */
    @Override
    public void start() {
        api.start();
    }

    /** Stops the Jersey application with the server. */
    @Override
    public void destroy() {
        api.destroy();
    }
}
