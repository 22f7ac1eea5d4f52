package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quota.testkit.RawHttp;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HTTP/2 cleartext, as Java's {@code HttpClient} speaks it by default: the first request on a
 * connection offers an h2c upgrade ({@code Upgrade: h2c}) and is answered over HTTP/2, the later
 * ones are HTTP/2 streams on that connection. What broke: nothing on the server accepted the
 * upgrade, so every answer lost its {@code Content-Type} (a 429 came without
 * {@code application/problem+json}) and a request body never ended (a transfer hung until the
 * client gave up). Each test takes a new client, so its first request is the upgrade offer; a
 * request with a body goes over HTTP/2 once a request without one has upgraded the connection.
 */
class Http2CleartextTest {

    static final String KEY = "X-API-Key";
    static final String FREE = "demo-free-key";
    static final String TRANSFER = UpgradeOfferTest.TRANSFER;

    static RunningDemo demo;
    static URI api;

    HttpClient client;

    @BeforeAll
    static void start() {
        demo = RunningDemo.start();
        api = demo.api;
    }

    @AfterAll
    static void stop() {
        if (demo != null) {
            demo.close();
        }
    }

    @BeforeEach
    void nextDayAndNewClient() {
        demo.nextDay();
        client = HttpClient.newBuilder().connectTimeout(Http.TIMEOUT).build();
        assertThat(client.version()).as("the client's default").isEqualTo(HttpClient.Version.HTTP_2);
    }

    @Test
    void get_isAnsweredOverHttp2_withContentTypeAndRateLimitHeaders() {
        HttpResponse<String> upgrade = get(api.resolve("accounts/ACC-1001"), KEY, FREE);
        HttpResponse<String> stream = get(api.resolve("accounts/ACC-1001"), KEY, FREE);

        for (HttpResponse<String> response : List.of(upgrade, stream)) {
            assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(Http.header(response, "Content-Type")).isEqualTo("application/json");
            assertThat(Http.header(response, "RateLimit-Policy")).contains("\"free-burst\";q=20;w=2");
            assertThat(Http.json(response).get("id").asText()).isEqualTo("ACC-1001");
        }
        assertThat(Http.header(upgrade, "RateLimit")).contains("\"free-burst\";r=19;");
        assertThat(Http.header(stream, "RateLimit")).contains("\"free-burst\";r=18;");
    }

    /**
     * What broke: a transfer's body never ended, and the transfer hung. A request with a body
     * offering the upgrade is answered over HTTP/1.1 ({@link CleartextHttp2}); a transfer on a
     * connection a GET upgraded goes over HTTP/2.
     */
    @Test
    void transfer_offeringTheUpgradeOrOnAnUpgradedConnection_returns201() {
        HttpResponse<String> offering = post(TRANSFER);
        HttpResponse<String> upgrading = get(api.resolve("quota"), KEY, FREE);
        HttpResponse<String> upgraded = post(TRANSFER);

        assertThat(offering.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(upgrading.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(upgraded.version()).isEqualTo(HttpClient.Version.HTTP_2);
        for (HttpResponse<String> response : List.of(offering, upgraded)) {
            assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
            assertThat(Http.header(response, "Content-Type")).isEqualTo("application/json");
            assertThat(Http.json(response).get("amount").asText()).isEqualTo("10.00");
        }
        assertThat(Http.header(upgraded, "RateLimit")).contains("\"transfers-per-minute\";r=8;");
    }

    @Test
    void overTheBurst_gets429ProblemJsonWithRetryAfter() {
        for (int i = 0; i < 20; i++) {
            assertThat(get(api.resolve("accounts/ACC-1001"), KEY, FREE).statusCode()).as("request %d", i + 1)
                    .isEqualTo(200);
        }

        HttpResponse<String> rejected = get(api.resolve("accounts/ACC-1001"), KEY, FREE);

        assertThat(rejected.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(rejected.statusCode()).isEqualTo(429);
        assertThat(Http.header(rejected, "Content-Type")).isEqualTo("application/problem+json");
        assertThat(Http.header(rejected, "Retry-After")).isEqualTo("1");
        assertThat(Http.header(rejected, "RateLimit")).contains("\"free-burst\";r=0;");
        assertThat(Http.json(rejected).get("type").asText()).isEqualTo("urn:quota:problem:quota-exceeded");
    }

    /** Not JSON, and a body of several HTTP/2 frames (16 KB each at most) that is too long. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "from=ACC-1001&amount=5 | body: is not valid JSON (line 1, column 6)",
        "LONG                   | body: must be at most 16384 bytes"})
    void badBody_gets400ProblemJson(String body, String error) {
        String sent = body.equals("LONG") ? "{\"memo\":\"" + "x".repeat(40_000) + "\"}" : body;
        assertThat(get(api.resolve("quota"), KEY, FREE).version()).as("upgraded").isEqualTo(HttpClient.Version.HTTP_2);

        HttpResponse<String> response = post(sent);

        assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(Http.header(response, "Content-Type")).isEqualTo("application/problem+json");
        JsonNode problem = Http.json(response);
        assertThat(problem.get("type").asText()).isEqualTo("urn:quota-demo:problem:invalid-request");
        JsonNode first = problem.get("errors").get(0);
        assertThat(first.get("field").asText() + ": " + first.get("message").asText()).isEqualTo(error);
    }

    /** Jetty's request, which the quota filter reads the peer from, is the HTTP/2 stream's connection. */
    @Test
    void anonymousCallers_areCountedPerPeerAddress() throws IOException {
        HttpResponse<String> first = get(api.resolve("quota"));
        HttpResponse<String> second = get(api.resolve("quota"));
        RawHttp2.Response other;
        try (RawHttp2 connection = RawHttp2.connect(api, InetAddress.getByName("127.0.0.2"))) {
            other = connection.get(authority(api), "/api/v1/quota");
        }

        assertThat(second.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(Http.json(first).get("customer").asText()).isEqualTo("ip:127.0.0.1");
        assertThat(Http.header(first, "RateLimit")).isEqualTo("\"anonymous-burst\";r=9;t=12");
        assertThat(Http.header(second, "RateLimit")).startsWith("\"anonymous-burst\";r=8;");
        assertThat(other.status()).isEqualTo(200);
        assertThat(other.body()).contains("\"customer\":\"ip:127.0.0.2\"");
        assertThat(other.headers().get("ratelimit")).isEqualTo("\"anonymous-burst\";r=9;t=12");
    }

    /** Over HTTP/2 the host is {@code :authority}, checked like the {@code Host} header. */
    @ParameterizedTest
    @ValueSource(strings = {"a_b", "-a.example", "1.2.3.999"})
    void malformedAuthority_gets400Problem(String authority) throws IOException {
        RawHttp2.Response response;
        RawHttp2.Response wellFormed;
        try (RawHttp2 connection = RawHttp2.connect(api, InetAddress.getLoopbackAddress())) {
            response = connection.get(authority, "/api/v1/accounts/ACC-1001", KEY, FREE);
            wellFormed = connection.get(authority(api), "/api/v1/accounts/ACC-1001", KEY, FREE);
        }

        assertThat(response.status()).isEqualTo(400);
        assertThat(response.headers().get("content-type")).startsWith("application/problem+json");
        assertThat(response.body()).contains("\"detail\":\"The Host header is malformed");
        assertThat(wellFormed.status()).isEqualTo(200);
        assertThat(wellFormed.headers().get("content-type")).isEqualTo("application/json");
    }

    /**
     * An {@code :authority} Jetty's HPACK decoder cannot parse as host and port ends the connection
     * (GOAWAY, PROTOCOL_ERROR), never the listener: the next connection is served.
     */
    @ParameterizedTest
    @ValueSource(strings = {"::1:32080", "host:99999", "host:-1"})
    void unparsableAuthority_closesThatConnectionOnly(String authority) throws IOException {
        String answer;
        try (RawHttp2 connection = RawHttp2.connect(api, InetAddress.getLoopbackAddress())) {
            try {
                answer = "status " + connection.get(authority, "/api/v1/accounts/ACC-1001", KEY, FREE).status();
            } catch (IOException e) {
                answer = String.valueOf(e.getMessage());
            }
        }
        RawHttp2.Response next;
        try (RawHttp2 connection = RawHttp2.connect(api, InetAddress.getLoopbackAddress())) {
            next = connection.get(authority(api), "/api/v1/accounts/ACC-1001", KEY, FREE);
        }

        assertThat(answer).startsWith("GOAWAY, error code 1");
        assertThat(next.status()).isEqualTo(200);
    }

    /** RFC 9113, section 8.3.1: an http request without it is malformed, like HTTP/1.1 without Host. */
    @Test
    void noAuthority_gets400Problem() throws IOException {
        RawHttp2.Response response;
        try (RawHttp2 connection = RawHttp2.connect(api, InetAddress.getLoopbackAddress())) {
            response = connection.get(null, "/api/v1/accounts/ACC-1001", KEY, FREE);
        }

        assertThat(response.status()).isEqualTo(400);
        assertThat(response.headers().get("content-type")).startsWith("application/problem+json");
        assertThat(response.body()).contains("\"detail\":\"The request has no :authority; send the host in it.\"");
    }

    @Test
    void management_servesMetricsOverHttp2_toLoopbackAuthoritiesOnly() throws IOException {
        HttpResponse<String> metrics = get(demo.management.resolve("metrics"));
        RawHttp2.Response rebound;
        RawHttp2.Response unaddressed;
        try (RawHttp2 connection = RawHttp2.connect(demo.management, InetAddress.getLoopbackAddress())) {
            rebound = connection.get("attacker.example:" + demo.management.getPort(), "/metrics");
            // Grizzly drops a host field over HTTP/2: without :authority the request names no host
            unaddressed = connection.get(null, "/metrics", "host", "attacker.example");
        }

        assertThat(metrics.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(Http.header(metrics, "Content-Type")).isEqualTo(MetricsHandler.CONTENT_TYPE);
        assertThat(metrics.body()).contains("# TYPE ");
        assertThat(rebound.status()).isEqualTo(403);
        assertThat(rebound.headers().get("content-type")).startsWith("application/problem+json");
        assertThat(unaddressed.status()).isEqualTo(403);
    }

    @Test
    void http11Client_isStillAnsweredOverHttp11() {
        HttpResponse<String> account = Http.get(api.resolve("accounts/ACC-1001"), KEY, FREE);
        HttpResponse<String> transfer = Http.postJson(api.resolve("transfers"), TRANSFER, KEY, FREE);

        assertThat(Http.CLIENT.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(account.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(account.statusCode()).isEqualTo(200);
        assertThat(Http.header(account, "Content-Type")).isEqualTo("application/json");
        assertThat(transfer.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(transfer.statusCode()).isEqualTo(201);
    }

    private HttpResponse<String> get(URI uri, String... headers) {
        return Http.send(client, Http.request(uri, headers).GET());
    }

    private HttpResponse<String> post(String body) {
        return Http.send(client, Http.request(api.resolve("transfers"), KEY, FREE)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private static String authority(URI uri) {
        return uri.getHost() + ":" + uri.getPort();
    }
}
