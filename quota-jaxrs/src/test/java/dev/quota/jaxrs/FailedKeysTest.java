package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Guessing API keys: 10 unknown keys per address and minute are answered 401, then 429. */
class FailedKeysTest {

    private static final ClientAddress TEST_ADDRESS = request -> request.getHeaderString("X-Test-Address");
    private static final String GUESSER = "203.0.113.66";

    private Fixture fixture;

    @BeforeEach
    void start() {
        fixture = Fixture.with(TestConfig.standard()).feature(f -> f.clientAddress(TEST_ADDRESS)).start();
    }

    @AfterEach
    void stop() {
        fixture.close();
    }

    private HttpResponse<String> get(String address, String key) {
        return fixture.server.get("/api/v1/accounts/1", "X-Test-Address", address, "X-API-Key", key);
    }

    @Test
    void tenUnknownKeys_are401_theEleventhIs429TooManyFailedKeys() {
        for (int i = 0; i < 10; i++) {
            assertThat(get(GUESSER, "guess-" + i).statusCode()).as("guess %d", i).isEqualTo(401);
        }

        HttpResponse<String> eleventh = get(GUESSER, "guess-10");

        assertThat(eleventh.statusCode()).isEqualTo(429);
        // 10 per minute: one more guess every 6 s
        assertThat(eleventh.headers().firstValue("Retry-After")).hasValue("6");
        assertThat(eleventh.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(eleventh.headers().firstValue("RateLimit")).isEmpty();
        assertThat(eleventh.body()).isEqualTo("{\"type\":\"urn:quota:problem:too-many-failed-keys\","
                + "\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Too many unknown API keys from this address; retry in 6 s.\","
                + "\"retryAfterSeconds\":6}");
    }

    @Test
    void blockedAddress_cannotTestAValidKeyEither_otherAddressesAreUnaffected() {
        for (int i = 0; i <= 10; i++) {
            get(GUESSER, "guess-" + i);
        }

        assertThat(get(GUESSER, TestConfig.ACME_KEY).statusCode()).isEqualTo(429);
        assertThat(get("198.51.100.1", TestConfig.ACME_KEY).statusCode()).isEqualTo(200);
        assertThat(get("198.51.100.1", "wrong-key").statusCode()).isEqualTo(401);
    }

    @Test
    void retryAfter_isHonest_oneMoreGuessAfterSixSeconds() {
        for (int i = 0; i <= 10; i++) {
            get(GUESSER, "guess-" + i);
        }

        fixture.clock.advance(Duration.ofSeconds(6));

        assertThat(get(GUESSER, TestConfig.ACME_KEY).statusCode()).isEqualTo(200);
        assertThat(get(GUESSER, "guess-11").statusCode()).isEqualTo(401);
        assertThat(get(GUESSER, "guess-12").statusCode()).isEqualTo(429);
    }

    @Test
    void ipv6Guessers_areCountedPerSlash64() {
        for (int i = 0; i < 10; i++) {
            assertThat(get("2001:db8:5:5::" + (i + 1), "guess-" + i).statusCode()).isEqualTo(401);
        }

        assertThat(get("2001:db8:5:5:abcd::1", "guess-10").statusCode()).isEqualTo(429);
    }

    @Test
    void validKeys_doNotCount() {
        for (int i = 0; i < 15; i++) {
            assertThat(get(GUESSER, TestConfig.ACME_KEY).statusCode()).isEqualTo(200);
        }

        assertThat(get(GUESSER, "guess").statusCode()).isEqualTo(401);
    }
}
