package dev.quota.demo;

import java.util.List;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;

/**
 * The API server's handler in front of Jersey: refuses a request whose {@code Host} is malformed
 * with a 400 problem, and hands every other request to the Jersey application.
 *
 * <p>Before Jersey on purpose: Jersey builds the request's base URI from the host before any
 * filter or exception mapper runs, so a host it cannot parse would fail there. What
 * {@link HostHeader} accepts, both parse. Jetty refuses some malformed values itself while parsing
 * (its answer is made a problem by {@link ProblemErrorHandler}, with the same detail).
 *
 * <p>HTTP/1.1 requires exactly one {@code Host} header (RFC 9112, section 3.2): none or two or more
 * are refused. HTTP/1.0 may leave it out. Over HTTP/2 the host is the {@code :authority}
 * pseudo-header, checked the same way; a request without one is malformed (RFC 9113, section
 * 8.3.1) and refused here.
 */
final class HostCheckHandler extends Handler.Wrapper {

    static final String MALFORMED = "The Host header is malformed: send a host name, an IPv4 address or a"
            + " bracketed IPv6 address, optionally with a port up to 65535.";

    HostCheckHandler(Handler api) {
        super(api);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String problem = problem(request);
        if (problem != null) {
            ServerProblems.send(response, callback, new Problem("about:blank", "Bad Request", 400, problem, null, null));
            return true;
        }
        return super.handle(request, response, callback);
    }

    /** What is wrong with the request's host, or null when nothing is. */
    static @Nullable String problem(Request request) {
        HttpVersion version = request.getConnectionMetaData().getHttpVersion();
        if (version == HttpVersion.HTTP_2 || version == HttpVersion.HTTP_3) {
            String authority = request.getHttpURI().getAuthority();
            if (authority == null || authority.isEmpty()) {
                return "The request has no :authority; send the host in it.";
            }
            return HostHeader.valid(authority) ? null : MALFORMED;
        }
        List<String> hosts = request.getHeaders().getValuesList(HttpHeader.HOST);
        if (hosts.size() > 1) {
            return "The request has " + hosts.size() + " Host headers; send exactly one.";
        }
        if (hosts.isEmpty()) {
            return version == HttpVersion.HTTP_1_1 ? "The request has no Host header; send exactly one." : null;
        }
        return HostHeader.valid(hosts.get(0)) ? null : MALFORMED;
    }
}
