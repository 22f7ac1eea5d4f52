package dev.quota.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RawHttp;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A user's service on each runtime the README names, built from the README's snippets against the
 * artifacts this build installed, run as its own process against a real Redis, and asked over
 * real HTTP what the README promises: 200 with RateLimit headers, 429 problems with
 * {@code Retry-After}, 401 for an unknown key, anonymous callers limited per client address,
 * transfers decided with their amount (429, 422, 400; never a 500), and the admin API: 200 with
 * the token, 401 without, 429 after too many wrong tokens from one address; on every runtime.
 *
 * <p>On a container that does not tell the client's address, the service must refuse to start.
 *
 * <p>The builds run as {@link ConsumerBuilds} says; a project is run as soon as its build is done,
 * one at a time on a flushed Redis.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsumerBuildsTest {

    /** The key the README's plans.yaml gives customer acme on plan free. */
    private static final String ACME_KEY = "acme-demo-key-0001";
    private static final String EXPORT = "/api/v1/accounts/7/export";
    private static final String ADMIN_ACME = "/admin/customers/acme";

    private static ConsumerBuilds builds;

    static List<String> projects() {
        return ConsumerProject.supported();
    }

    @BeforeAll
    static void buildEveryProject() {
        builds = ConsumerBuilds.get();
    }

    private static ConsumerProject built(String name) throws InterruptedException {
        return builds.built(name);
    }

    private static ConsumerProject.Running start(ConsumerProject project) {
        return builds.start(project);
    }

    @Order(1)
    @ParameterizedTest(name = "{0}")
    @MethodSource("projects")
    void consumerProject_answersAsTheReadmeSays(String name) throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            answersAsTheReadmeSays(service);
        }
    }

    /**
     * 200 with RateLimit headers for a known key, 401 for an unknown one, the anonymous plan per
     * client address: 200, then 429 from 127.0.0.1 while 127.0.0.2 still gets its 200.
     */
    static void answersAsTheReadmeSays(ConsumerProject.Running service) {
        int port = service.port();

        RawHttp.Answer admitted = RawHttp.get("127.0.0.1", port, EXPORT, "X-API-Key", ACME_KEY);
        assertThat(admitted.status()).as("a known key, %s", service.output()).isEqualTo(200);
        assertThat(admitted.body()).isEqualTo("export of account 7");
        assertThat(admitted.header("RateLimit-Policy")).isEqualTo("\"free-burst\";q=20;w=2, \"free-daily\";q=2000;w=86400");
        // the export cost 10 of the burst of 20, which refills at 10 per second
        assertThat(admitted.header("RateLimit")).startsWith("\"free-burst\";r=10;t=1, \"free-daily\";r=1990;t=");

        RawHttp.Answer unknownKey = RawHttp.get("127.0.0.1", port, EXPORT, "X-API-Key", "not-a-key");
        assertThat(unknownKey.status()).as("an unknown key").isEqualTo(401);
        assertThat(unknownKey.header("Content-Type")).startsWith("application/problem+json");
        assertThat(unknownKey.header("WWW-Authenticate")).isEqualTo("ApiKey header=\"X-API-Key\"");
        assertThat(unknownKey.body()).contains("\"type\":\"urn:quota:problem:unknown-api-key\"");

        RawHttp.Answer anonymous = RawHttp.get("127.0.0.1", port, EXPORT);
        assertThat(anonymous.status()).as("the first anonymous export from 127.0.0.1").isEqualTo(200);
        assertThat(anonymous.header("RateLimit")).isEqualTo("\"anonymous-burst\";r=0;t=120");

        RawHttp.Answer rejected = RawHttp.get("127.0.0.1", port, EXPORT);
        assertThat(rejected.status()).as("the second anonymous export from 127.0.0.1").isEqualTo(429);
        assertThat(rejected.header("Content-Type")).startsWith("application/problem+json");
        assertThat(Long.parseLong(rejected.header("Retry-After"))).isPositive();
        assertThat(rejected.body()).contains("\"type\":\"urn:quota:problem:quota-exceeded\"")
                .contains("\"limit\":\"anonymous-burst\"");

        RawHttp.Answer otherClient = RawHttp.get("127.0.0.2", port, EXPORT);
        assertThat(otherClient.status()).as("an anonymous export from 127.0.0.2, after 127.0.0.1 ran out; %s",
                service.output()).isEqualTo(200);
        assertThat(otherClient.header("RateLimit")).isEqualTo("\"anonymous-burst\";r=0;t=120");
    }

    @Order(2)
    @ParameterizedTest(name = "{0}")
    @MethodSource("projects")
    void adminApi_answersTheRightTokenOnly_andThrottlesWrongTokensPerClientAddress(String name)
            throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            int port = service.port();
            String bearer = "Bearer " + ConsumerProject.ADMIN_TOKEN;
            assertThat(RawHttp.get("127.0.0.1", port, EXPORT, "X-API-Key", ACME_KEY).status()).isEqualTo(200);

            RawHttp.Answer standing = RawHttp.get("127.0.0.1", port, ADMIN_ACME, "Authorization", bearer);
            assertThat(standing.status()).as("the right token; %s", service.output()).isEqualTo(200);
            assertThat(standing.header("Content-Type")).startsWith("application/json");
            assertThat(standing.header("RateLimit")).as("admin calls are not counted against a quota").isNull();
            assertThat(standing.body()).startsWith("{\"customer\":\"acme\",\"plan\":\"free\",\"multiplier\":1.0,")
                    .contains("{\"policy\":\"free-burst\",\"capacity\":20,")
                    // the export took 10 of today's 2000, in Redis
                    .containsPattern("\\{\"policy\":\"free-daily\",\"capacity\":2000,\"refill\":\\{[^}]*},"
                            + "\"remaining\":1990,");

            // one attempt comes back every 10 s: the six wrong tokens are sent back to back
            for (int i = 1; i <= 5; i++) {
                RawHttp.Answer wrong = RawHttp.get("127.0.0.3", port, ADMIN_ACME, "Authorization", "Bearer wrong-" + i);
                assertThat(wrong.status()).as("wrong token %d from 127.0.0.3; %s", i, service.output()).isEqualTo(401);
                assertThat(wrong.header("Content-Type")).startsWith("application/problem+json");
                assertThat(wrong.header("WWW-Authenticate")).isEqualTo("Bearer realm=\"quota-admin\"");
                assertThat(wrong.body()).contains("\"type\":\"urn:quota:problem:admin-token-required\"");
            }
            RawHttp.Answer throttled = RawHttp.get("127.0.0.3", port, ADMIN_ACME, "Authorization", "Bearer wrong-6");
            assertThat(throttled.status()).as("the sixth wrong token from 127.0.0.3").isEqualTo(429);
            assertThat(throttled.header("Content-Type")).startsWith("application/problem+json");
            assertThat(Long.parseLong(throttled.header("Retry-After"))).isBetween(1L, 10L);
            assertThat(throttled.body()).contains("\"type\":\"urn:quota:problem:too-many-failed-admin-tokens\"");

            // the config summary needs no store call: this checks the throttle, not Redis under load
            RawHttp.Answer otherAddress = RawHttp.get("127.0.0.1", port, "/admin/config", "Authorization", bearer);
            assertThat(otherAddress.status()).as("another address, with the right token").isEqualTo(200);
            assertThat(otherAddress.body()).startsWith("{\"version\":");
        }
    }

    @Order(3)
    @Test
    void containerWithoutAPeerAddress_refusesToStart_sayingHowToSupplyOne() throws InterruptedException {
        try (ConsumerProject.Running service = built(ConsumerProject.UNSUPPORTED).launch(builds.redisUri())) {
            String output = service.awaitOutput("QuotaFeature.builder(service).clientAddress(request -> ...)",
                    ConsumerProject.START_TIMEOUT);

            assertThat(output).contains("java.lang.IllegalStateException: quota: cannot find the client's address on"
                    + " this runtime: Jersey, but none of its Grizzly, Jetty or servlet containers is on the class path");
            assertThat(output).doesNotContain("listening on");
        }
    }

    @Order(4)
    @ParameterizedTest(name = "{0}")
    @MethodSource("projects")
    void transfers_areDecidedWithTheirAmount_429_422_400_neverA500(String name) throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            decidesTransfersWithTheirAmount(service);
        }
    }

    /** Transfers of customer acme in EUR and USD against the README's 10,000.00 a day: 201, 429, 422, 400. */
    static void decidesTransfersWithTheirAmount(ConsumerProject.Running service) {
        int port = service.port();

        RawHttp.Answer within = transfer(port, "EUR", 600_000);
        assertThat(within.status()).as("6,000.00 of the day's 10,000.00; %s", service.output()).isIn(200, 201);

        RawHttp.Answer overRemaining = transfer(port, "EUR", 600_000);
        assertThat(overRemaining.status()).as("6,000.00 more, with 4,000.00 left; %s", service.output())
                .isEqualTo(429);
        assertThat(overRemaining.header("Content-Type")).startsWith("application/problem+json");
        assertThat(Long.parseLong(overRemaining.header("Retry-After"))).isPositive();
        assertThat(overRemaining.body()).contains("\"type\":\"urn:quota:problem:quota-exceeded\"")
                .contains("\"limit\":\"transfer-amount-daily\"").contains("\"remaining\":400000");

        RawHttp.Answer overWhole = transfer(port, "EUR", 2_000_000);
        assertThat(overWhole.status()).as("20,000.00, more than a day ever holds; %s", service.output())
                .isEqualTo(422);
        assertThat(overWhole.header("Content-Type")).startsWith("application/problem+json");
        assertThat(overWhole.header("Retry-After")).as("retrying cannot help").isNull();
        assertThat(overWhole.body()).contains("\"type\":\"urn:quota:problem:exceeds-limit\"")
                .contains("\"limit\":\"transfer-amount-daily\"");

        RawHttp.Answer negative = transfer(port, "EUR", -500);
        assertThat(negative.status()).as("a negative amount; %s", service.output()).isEqualTo(400);
        assertThat(negative.header("Content-Type")).startsWith("application/problem+json");
        assertThat(negative.body()).contains("\"type\":\"urn:quota:problem:invalid-amount\"");

        RawHttp.Answer huge = transfer(port, "EUR", Long.MAX_VALUE);
        assertThat(huge.status()).as("an amount of Long.MAX_VALUE; %s", service.output()).isEqualTo(422);

        RawHttp.Answer badCurrency = transfer(port, "EUR;DROP", 100);
        assertThat(badCurrency.status()).as("a currency that is no currency code; %s", service.output())
                .isEqualTo(400);
        assertThat(badCurrency.body()).contains("\"type\":\"urn:quota:problem:invalid-amount\"")
                .doesNotContain("DROP");

        RawHttp.Answer otherCurrency = transfer(port, "USD", 600_000);
        assertThat(otherCurrency.status()).as("USD has a limit of its own; %s", service.output()).isIn(200, 201);
    }

    @Order(5)
    @ParameterizedTest(name = "{0}")
    @MethodSource("projects")
    void requestsTheRuntimeRefuses_405And415_costAToken_andAreLimited(String name) throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            countsWhatTheRuntimeRefuses(service);
        }
    }

    /**
     * 405 (DELETE on the transfers path) and 415 (a text/plain transfer) cost an anonymous caller a
     * token each, 10 at once per address, then 429 naming the anonymous burst.
     */
    static void countsWhatTheRuntimeRefuses(ConsumerProject.Running service) {
        int port = service.port();
        for (int i = 0; i < 10; i++) {
            RawHttp.Answer refused = RawHttp.send("127.0.0.51", port, "DELETE", "/api/v1/transfers", null);
            assertThat(refused.status()).as("anonymous DELETE %d; %s", i + 1, service.output()).isEqualTo(405);
        }
        RawHttp.Answer deletes = RawHttp.send("127.0.0.51", port, "DELETE", "/api/v1/transfers", null);
        assertThat(deletes.status()).as("the 11th DELETE; %s", service.output()).isEqualTo(429);
        assertThat(deletes.body()).contains("\"limit\":\"anonymous-burst\"");

        byte[] text = "6000.00 EUR".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 10; i++) {
            RawHttp.Answer refused = RawHttp.send("127.0.0.52", port, "POST", "/api/v1/transfers", text,
                    "Content-Type", "text/plain");
            assertThat(refused.status()).as("text/plain transfer %d; %s", i + 1, service.output()).isEqualTo(415);
        }
        RawHttp.Answer texts = RawHttp.send("127.0.0.52", port, "POST", "/api/v1/transfers", text,
                "Content-Type", "text/plain");
        assertThat(texts.status()).as("the 11th text/plain transfer; %s", service.output()).isEqualTo(429);
        assertThat(texts.body()).contains("\"limit\":\"anonymous-burst\"");
    }

    /** The README's transfer, {@code {"currency":"EUR","amountMinor":600000}}, by customer acme. */
    private static RawHttp.Answer transfer(int port, String currency, long amountMinor) {
        return RawHttp.postJson("127.0.0.1", port, "/api/v1/transfers",
                "{\"currency\":\"" + currency + "\",\"amountMinor\":" + amountMinor + "}", "X-API-Key", ACME_KEY);
    }
}
