package dev.quota.demo;

import dev.quota.core.net.ClientAddresses;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

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
final class MetricsHandler extends Handler.Abstract {

    /** Where the metrics are; exactly this path, no query string needed. */
    static final String PATH = "/metrics";

    /** The Prometheus text exposition format, version 0.0.4. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;

    MetricsHandler(PrometheusMeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        if (!loopbackHost(request)) {
            ServerProblems.send(response, callback, Problem.http(403, "The management listener answers only requests"
                    + " addressed to 127.0.0.1, localhost or [::1].", null));
            return true;
        }
        // the raw path: /metrics has nothing to decode
        if (!PATH.equals(request.getHttpURI().getPath())) {
            ServerProblems.send(response, callback, Problem.http(404, "The management listener serves " + PATH
                    + " only.", null));
            return true;
        }
        String method = request.getMethod();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            ServerProblems.send(response, callback, Problem.http(405,
                    "The method is not allowed here; allowed: GET, HEAD.", null));
            return true;
        }
        byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, CONTENT_TYPE);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, method.equals("GET") ? ByteBuffer.wrap(body) : ByteBuffer.allocate(0), callback);
        return true;
    }

    /**
     * Exactly one Host header naming a loopback host (any port; over HTTP/2 the {@code :authority}),
     * or none at all from HTTP/1.0, which may leave it out.
     */
    static boolean loopbackHost(Request request) {
        HttpVersion version = request.getConnectionMetaData().getHttpVersion();
        String value;
        if (version == HttpVersion.HTTP_2 || version == HttpVersion.HTTP_3) {
            value = request.getHttpURI().getAuthority();
            if (value == null || value.isEmpty()) {
                return false;
            }
        } else {
            List<String> hosts = request.getHeaders().getValuesList(HttpHeader.HOST);
            if (hosts.isEmpty()) {
                return version == HttpVersion.HTTP_1_0;
            }
            value = hosts.size() == 1 ? hosts.get(0) : null;
        }
        String host = value == null ? null : HostHeader.host(value);
        if (host == null) {
            return false;
        }
        // a literal, never a name: 127.example.net can be made to resolve to 127.0.0.1 as well
        InetAddress literal = ClientAddresses.parse(host);
        return host.equals("localhost") || host.equals("localhost.") || literal != null && literal.isLoopbackAddress();
    }
}
