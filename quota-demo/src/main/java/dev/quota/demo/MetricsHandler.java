package dev.quota.demo;

import dev.quota.core.net.ClientAddresses;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import org.glassfish.grizzly.http.Method;
import org.glassfish.grizzly.http.Protocol;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;

/**
 * The management listener's one handler: {@code GET /metrics} with the instance's meters in the
 * Prometheus text format ({@code quota_decisions_total}, {@code quota_decision_latency_seconds},
 * {@code quota_store_errors_total}, ...); 404 for any other path.
 *
 * <p>Not on the API port: the metrics count decisions per plan, and a plan with one customer shows
 * that customer's traffic to whoever can read them. The listener is bound to 127.0.0.1 only
 * ({@link ApiServer}), and it answers only requests addressed to a loopback host
 * ({@code 127.0.0.1}, {@code localhost}, {@code [::1]}), so that a web page cannot read it from a
 * browser on the same machine through a name of its own that resolves to 127.0.0.1 (DNS rebinding).
 * Outside Jersey, so no quota filter ever sees a scrape.
 */
final class MetricsHandler extends HttpHandler {

    /** Where the metrics are; exactly this path, no query string needed. */
    static final String PATH = "/metrics";
    /** The Prometheus text exposition format, version 0.0.4. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;

    MetricsHandler(PrometheusMeterRegistry registry) {
        super("metrics");
        this.registry = registry;
    }

    @Override
    public void service(Request request, Response response) throws Exception {
        if (!loopbackHost(request)) {
            GrizzlyProblems.send(response, Problem.http(403, "The management listener answers only requests"
                    + " addressed to 127.0.0.1, localhost or [::1].", null));
            return;
        }
        // the raw URI: /metrics has nothing to decode
        if (!PATH.equals(request.getRequestURI())) {
            GrizzlyProblems.send(response, Problem.http(404, "The management listener serves " + PATH
                    + " only.", null));
            return;
        }
        Method method = request.getMethod();
        if (method != Method.GET && method != Method.HEAD) {
            response.setHeader("Allow", "GET, HEAD");
            GrizzlyProblems.send(response, Problem.http(405, "The method is not allowed here; allowed: GET, HEAD.",
                    null));
            return;
        }
        byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
        response.setStatus(200);
        response.setContentType(CONTENT_TYPE);
        response.setHeader("Cache-Control", "no-store");
        response.setContentLength(body.length);
        if (method == Method.GET) {
            response.getOutputStream().write(body);
        }
    }

    /**
     * Exactly one Host header naming a loopback host (any port; over HTTP/2 the {@code :authority}),
     * or none at all from HTTP/1.0, which may leave it out.
     */
    static boolean loopbackHost(Request request) {
        String value = null;
        int count = 0;
        for (String header : request.getHeaders("Host")) {
            value = header;
            count++;
        }
        if (count == 0) {
            return request.getProtocol() == Protocol.HTTP_1_0;
        }
        String host = count == 1 ? HostHeader.host(value) : null;
        if (host == null) {
            return false;
        }
        // a literal, never a name: 127.example.net can be made to resolve to 127.0.0.1 as well
        InetAddress literal = ClientAddresses.parse(host);
        return host.equals("localhost") || host.equals("localhost.") || literal != null && literal.isLoopbackAddress();
    }
}
