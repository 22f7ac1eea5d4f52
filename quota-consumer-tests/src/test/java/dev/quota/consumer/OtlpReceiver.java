package dev.quota.consumer;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.zip.GZIPInputStream;

/**
 * A small OTLP receiver, as a collector would be: OTLP over HTTP with protobuf bodies
 * ({@code POST /v1/metrics}, {@code POST /v1/traces}, gzip or not) on a free loopback port. It
 * keeps the latest point of each series (the exporters send cumulative sums, so that is the total)
 * and every span, with their attributes as plain values.
 */
final class OtlpReceiver implements AutoCloseable {

    /** One series as last exported: a sum's or gauge's value, a histogram's count and sum. */
    record Point(String metric, Map<String, Object> attributes, double value, long count) {
    }

    /** A span as exported: its name, attributes and events (name and attributes). */
    record ReceivedSpan(String name, Map<String, Object> attributes, List<Event> events) {
    }

    /** A span event. */
    record Event(String name, Map<String, Object> attributes) {
    }

    private record SeriesKey(String metric, Map<String, Object> attributes) {
    }

    private final HttpServer server;
    private final Map<SeriesKey, Point> latest = new ConcurrentHashMap<>();
    private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();

    private OtlpReceiver(HttpServer server) {
        this.server = server;
    }

    /** Starts listening on 127.0.0.1 at a free port. */
    static OtlpReceiver start() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            OtlpReceiver receiver = new OtlpReceiver(server);
            server.createContext("/v1/metrics", exchange -> receiver.handle(exchange, true));
            server.createContext("/v1/traces", exchange -> receiver.handle(exchange, false));
            server.start();
            return receiver;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the OTLP receiver", e);
        }
    }

    /** The base endpoint an exporter is given: {@code http://127.0.0.1:<port>}. */
    String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The latest point of {@code metric} with exactly these attributes, or null. */
    Point point(String metric, Map<String, Object> attributes) {
        return latest.get(new SeriesKey(metric, new TreeMap<>(attributes)));
    }

    /** Every latest point of {@code metric}. */
    List<Point> points(String metric) {
        return latest.values().stream().filter(p -> p.metric().equals(metric)).toList();
    }

    List<ReceivedSpan> spans() {
        return List.copyOf(spans);
    }

    /** What could not be decoded, for a failure's message. */
    List<String> errors() {
        return List.copyOf(errors);
    }

    /**
     * Polls until {@code done} holds (the exporters send on their own interval), or fails saying
     * what arrived.
     */
    void awaitUntil(String what, Duration timeout, Supplier<Boolean> done, Supplier<String> context) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.get()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("OTLP: " + what + " did not arrive within " + timeout + "; received "
                        + latest.values() + "; spans " + spans + "; errors " + errors + "\n" + context.get());
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            }
        }
    }

    private void handle(HttpExchange exchange, boolean metrics) throws IOException {
        try (exchange) {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                String encoding = exchange.getRequestHeaders().getFirst("Content-Encoding");
                body = ("gzip".equalsIgnoreCase(encoding) ? new GZIPInputStream(in) : in).readAllBytes();
            }
            byte[] answer;
            try {
                if (metrics) {
                    record(ExportMetricsServiceRequest.parseFrom(body));
                    answer = ExportMetricsServiceResponse.getDefaultInstance().toByteArray();
                } else {
                    record(ExportTraceServiceRequest.parseFrom(body));
                    answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
                }
            } catch (IOException | RuntimeException e) {
                errors.add(exchange.getRequestURI() + " " + exchange.getRequestHeaders().getFirst("Content-Type")
                        + ": " + e);
                exchange.sendResponseHeaders(400, -1);
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        }
    }

    private void record(ExportMetricsServiceRequest request) {
        request.getResourceMetricsList().forEach(resource -> resource.getScopeMetricsList().forEach(scope -> {
            for (Metric metric : scope.getMetricsList()) {
                List<NumberDataPoint> numbers = metric.hasSum() ? metric.getSum().getDataPointsList()
                        : metric.hasGauge() ? metric.getGauge().getDataPointsList() : List.of();
                for (NumberDataPoint point : numbers) {
                    double value = point.hasAsInt() ? point.getAsInt() : point.getAsDouble();
                    put(new Point(metric.getName(), attributes(point.getAttributesList()), value, 0));
                }
                if (metric.hasHistogram()) {
                    for (HistogramDataPoint point : metric.getHistogram().getDataPointsList()) {
                        put(new Point(metric.getName(), attributes(point.getAttributesList()), point.getSum(),
                                point.getCount()));
                    }
                }
            }
        }));
    }

    private void put(Point point) {
        latest.put(new SeriesKey(point.metric(), point.attributes()), point);
    }

    private void record(ExportTraceServiceRequest request) {
        request.getResourceSpansList().forEach(resource -> resource.getScopeSpansList().forEach(scope -> {
            for (Span span : scope.getSpansList()) {
                List<Event> events = new ArrayList<>();
                span.getEventsList().forEach(e -> events.add(new Event(e.getName(), attributes(e.getAttributesList()))));
                spans.add(new ReceivedSpan(span.getName(), attributes(span.getAttributesList()), events));
            }
        }));
    }

    private static Map<String, Object> attributes(List<KeyValue> keyValues) {
        Map<String, Object> attributes = new TreeMap<>();
        for (KeyValue keyValue : keyValues) {
            attributes.put(keyValue.getKey(), value(keyValue.getValue()));
        }
        return attributes;
    }

    private static Object value(AnyValue value) {
        return switch (value.getValueCase()) {
            case STRING_VALUE -> value.getStringValue();
            case INT_VALUE -> value.getIntValue();
            case DOUBLE_VALUE -> value.getDoubleValue();
            case BOOL_VALUE -> value.getBoolValue();
            default -> value.toString();
        };
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
