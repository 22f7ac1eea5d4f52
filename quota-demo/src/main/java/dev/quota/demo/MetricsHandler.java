package dev.quota.demo;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import org.glassfish.grizzly.http.Method;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;

/**
 * The server's one Grizzly handler: {@code GET /metrics} is answered here with the instance's
 * meters in the Prometheus text format ({@code quota_decisions_total},
 * {@code quota_decision_latency_seconds}, {@code quota_store_errors_total}, ...); every other
 * request goes to the Jersey application.
 *
 * <p>Outside Jersey on purpose: the quota feature binds its filter to every resource method of
 * the application, and a scraper must neither spend an anonymous caller's quota nor be refused
 * with 429 (anonymous callers get 10, then 5 a minute). One handler rather than a second
 * registration beside Jersey's, because with two Grizzly decodes the URI to choose between them
 * and answers a malformed one ({@code /%zz}) with a bare 500 before any error page is asked for.
 */
final class MetricsHandler extends HttpHandler {

    /** Where the metrics are; exactly this path, no query string needed. */
    static final String PATH = "/metrics";
    /** The Prometheus text exposition format, version 0.0.4. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;
    private final HttpHandler api;

    MetricsHandler(PrometheusMeterRegistry registry, HttpHandler api) {
        super("metrics-and-api");
        this.registry = registry;
        this.api = api;
    }

    @Override
    public void service(Request request, Response response) throws Exception {
        // the raw URI: decoding is Jersey's business, and /metrics has nothing to decode
        if (!PATH.equals(request.getRequestURI())) {
            api.service(request, response);
            return;
        }
        Method method = request.getMethod();
        if (method != Method.GET && method != Method.HEAD) {
            response.setHeader("Allow", "GET, HEAD");
            response.sendError(405);
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
