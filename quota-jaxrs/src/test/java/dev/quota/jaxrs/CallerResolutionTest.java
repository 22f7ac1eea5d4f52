package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Customer;
import dev.quota.core.Identity;
import dev.quota.core.spi.CustomerDirectory;
import jakarta.ws.rs.Priorities;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Who a request is counted against, and what hostile or missing credentials are answered. */
class CallerResolutionTest {

    private static final String UNKNOWN_KEY_BODY = "{\"type\":\"urn:quota:problem:unknown-api-key\","
            + "\"title\":\"Unauthorized\",\"status\":401,\"detail\":\"The API key is not recognised.\"}";

    /** The address a test claims to come from, since every test request comes from loopback. */
    private static final ClientAddress TEST_ADDRESS = request -> request.getHeaderString("X-Test-Address");

    private Fixture fixture;

    @AfterEach
    void stop() {
        fixture.close();
    }

    private Fixture start(TestConfig config) {
        fixture = Fixture.with(config).feature(f -> f.clientAddress(TEST_ADDRESS)).start();
        return fixture;
    }

    @Test
    void unknownKey_is401WithExactBodyAndChallenge() {
        start(TestConfig.standard());

        HttpResponse<String> response = fixture.server.get("/api/v1/accounts/1", "X-API-Key", "not-a-key");

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.body()).isEqualTo(UNKNOWN_KEY_BODY);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("ApiKey header=\"X-API-Key\"");
        assertThat(response.headers().firstValue("RateLimit")).isEmpty();
    }

    @Test
    void knownKey_isCountedAsItsCustomer() {
        start(TestConfig.standard());

        HttpResponse<String> response = fixture.server.get("/api/v1/whoami", "X-API-Key", TestConfig.ACME_KEY);

        assertThat(response.body()).isEqualTo("acme on free");
    }

    @Test
    void missingKey_isCountedOnTheAnonymousPlanPerClientAddress() {
        start(TestConfig.standard());

        assertThat(fixture.server.get("/api/v1/whoami", "X-Test-Address", "203.0.113.7").body())
                .isEqualTo("ip:203.0.113.7 on anonymous");
        for (int i = 0; i < 4; i++) {
            assertThat(fixture.server.get("/api/v1/accounts/1", "X-Test-Address", "203.0.113.7").statusCode())
                    .isEqualTo(200);
        }
        HttpResponse<String> sixth = fixture.server.get("/api/v1/accounts/1", "X-Test-Address", "203.0.113.7");
        HttpResponse<String> otherAddress = fixture.server.get("/api/v1/accounts/1", "X-Test-Address", "198.51.100.1");

        assertThat(sixth.statusCode()).isEqualTo(429);
        assertThat(sixth.body()).contains("\"limit\":\"anonymous-minute\"");
        assertThat(otherAddress.statusCode()).isEqualTo(200);
        assertThat(otherAddress.headers().firstValue("RateLimit")).hasValue("\"anonymous-minute\";r=4;t=12");
    }

    @Test
    void emptyKeyHeader_isTreatedAsMissing() {
        start(TestConfig.standard());

        HttpResponse<String> response = fixture.server.get("/api/v1/whoami", "X-API-Key", "", "X-Test-Address",
                "192.0.2.44");

        assertThat(response.body()).isEqualTo("ip:192.0.2.44 on anonymous");
    }

    @Test
    void withoutAClientAddress_anonymousCallersAre503_neverOneSharedBucket() {
        fixture = Fixture.with(TestConfig.standard()).feature(f -> f.clientAddress(request -> null)).start();

        HttpResponse<String> anonymous = fixture.server.get("/api/v1/whoami");

        assertThat(anonymous.statusCode()).isEqualTo(503);
        assertThat(anonymous.body()).contains("quota-check-failed");
        // callers with a key are still served: they are not counted by address
        assertThat(fixture.server.get("/api/v1/whoami", "X-API-Key", TestConfig.ACME_KEY).body())
                .isEqualTo("acme on free");
    }

    @Test
    void missingKey_whenTheConfigRejectsThem_is401MissingKey() {
        start(TestConfig.standard().identity(Identity.builder().missingKey(Identity.MissingKey.REJECT).build()));

        HttpResponse<String> response = fixture.server.get("/api/v1/accounts/1");

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.body()).isEqualTo("{\"type\":\"urn:quota:problem:missing-api-key\","
                + "\"title\":\"Unauthorized\",\"status\":401,"
                + "\"detail\":\"An API key is required in header X-API-Key.\"}");
        assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("ApiKey header=\"X-API-Key\"");
    }

    @Test
    void keyHeaderNamedInTheConfig_isTheOneRead() {
        start(TestConfig.standard().identity(Identity.builder().header("Authorization-Key")
                .missingKey(Identity.MissingKey.REJECT).build()));

        HttpResponse<String> viaConfigured = fixture.server.get("/api/v1/whoami", "Authorization-Key", TestConfig.ACME_KEY);
        HttpResponse<String> viaDefault = fixture.server.get("/api/v1/whoami", "X-API-Key", TestConfig.ACME_KEY);

        assertThat(viaConfigured.body()).isEqualTo("acme on free");
        assertThat(viaDefault.statusCode()).isEqualTo(401);
        assertThat(viaDefault.headers().firstValue("WWW-Authenticate")).hasValue("ApiKey header=\"Authorization-Key\"");
    }

    @Test
    void keyHeaderSentTwice_is400BadKey() {
        start(TestConfig.standard());

        HttpResponse<String> response = fixture.server.send(fixture.server.request("/api/v1/accounts/1")
                .header("X-API-Key", TestConfig.ACME_KEY).header("X-API-Key", "other-key").GET());

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).isEqualTo("{\"type\":\"urn:quota:problem:bad-api-key\","
                + "\"title\":\"Bad Request\",\"status\":400,\"detail\":\"Send header X-API-Key exactly once.\"}");
    }

    @Test
    void keyOf300Characters_is401AndNotEchoed() {
        start(TestConfig.standard());
        String key = "k".repeat(300);

        HttpResponse<String> response = fixture.server.get("/api/v1/accounts/1", "X-API-Key", key);

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.body()).isEqualTo(UNKNOWN_KEY_BODY);
    }

    @Test
    void keyWithTabOrNonAscii_is401() {
        start(TestConfig.standard());

        assertThat(fixture.server.get("/api/v1/accounts/1", "X-API-Key", "abc\tdef").statusCode()).isEqualTo(401);
        assertThat(fixture.server.get("/api/v1/accounts/1", "X-API-Key", "caf\u00e9-key").statusCode()).isEqualTo(401);
        assertThat(fixture.server.get("/api/v1/accounts/1", "X-API-Key", "two words").statusCode()).isEqualTo(401);
    }

    @Test
    void keyWithRawControlBytes_is401NeverAServerError() throws IOException {
        start(TestConfig.standard());

        for (byte control : new byte[] {0x01, 0x1b, 0x7f}) {
            String status = rawGet("/api/v1/accounts/1", new byte[] {'k', 'e', 'y', control, 'x'});
            assertThat(status).as("status line for byte %02x", control).isEqualTo("HTTP/1.1 401 Unauthorized");
        }
    }

    @Test
    void principal_isTheCustomerTheDirectoryNames_andUnknownPrincipalsAre401() {
        CustomerDirectory directory = new CustomerDirectory() {
            @Override
            public Customer byApiKeyHash(String sha256Hex) {
                return null;
            }

            @Override
            public Customer byPrincipal(String name) {
                return name.equals("alice") ? Customer.of("ACME-ALICE", "free") : null;
            }
        };
        fixture = Fixture.with(TestConfig.standard()).customers(directory)
                .feature(f -> f.clientAddress(TEST_ADDRESS).callerResolver(CallerResolver.principal()))
                .application(app -> app.register(new TestAuthentication(), Priorities.AUTHENTICATION))
                .start();

        assertThat(fixture.server.get("/api/v1/whoami", "X-Test-User", "alice").body()).isEqualTo("ACME-ALICE on free");
        assertThat(fixture.server.get("/api/v1/whoami", "X-Test-Address", "192.0.2.9").body())
                .isEqualTo("ip:192.0.2.9 on anonymous");
        assertThat(fixture.server.get("/api/v1/whoami", "X-Test-User", "mallory").statusCode()).isEqualTo(401);
    }

    @Test
    void principalUnknownToTheDirectory_isCountedAsUserOnThePrincipalPlan() {
        Identity principals = Identity.builder().principalPlan("free").build();
        fixture = Fixture.with(TestConfig.standard().identity(principals))
                .feature(f -> f.clientAddress(TEST_ADDRESS).callerResolver(CallerResolver.principal()))
                .application(app -> app.register(new TestAuthentication(), Priorities.AUTHENTICATION))
                .start();

        assertThat(fixture.server.get("/api/v1/whoami", "X-Test-User", "alice").body()).isEqualTo("user:alice on free");
    }

    @Test
    void firstOf_takesTheFirstResolverThatSawACredential() {
        Identity principals = Identity.builder().principalPlan("free").build();
        fixture = Fixture.with(TestConfig.standard().identity(principals))
                .feature(f -> f.clientAddress(TEST_ADDRESS).callerResolver(
                        CallerResolver.firstOf(CallerResolver.principal(), CallerResolver.apiKey())))
                .application(app -> app.register(new TestAuthentication(), Priorities.AUTHENTICATION))
                .start();

        assertThat(fixture.server.get("/api/v1/whoami", "X-Test-User", "alice", "X-API-Key", TestConfig.ACME_KEY)
                .body()).isEqualTo("user:alice on free");
        assertThat(fixture.server.get("/api/v1/whoami", "X-API-Key", TestConfig.ACME_KEY).body())
                .isEqualTo("acme on free");
        assertThat(fixture.server.get("/api/v1/whoami", "X-Test-Address", "192.0.2.1").body())
                .isEqualTo("ip:192.0.2.1 on anonymous");
        assertThat(fixture.server.get("/api/v1/whoami", "X-API-Key", "wrong").statusCode()).isEqualTo(401);
    }

    /** Sends a GET with raw bytes as the key, which no well-behaved client would send; returns the status line. */
    private String rawGet(String path, byte[] key) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), fixture.server.port())) {
            socket.setSoTimeout(10_000);
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.writeBytes(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-API-Key: ")
                    .getBytes(StandardCharsets.US_ASCII));
            request.writeBytes(key);
            request.writeBytes("\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            OutputStream out = socket.getOutputStream();
            out.write(request.toByteArray());
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            return response.substring(0, response.indexOf("\r\n"));
        }
    }
}
