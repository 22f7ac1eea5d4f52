package dev.quota.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RawHttp;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A user's service on Quarkus 3.34 (Quarkus REST with quota-jaxrs or quota-cdi, RESTEasy classic
 * with quota-cdi) and on Helidon MP 4.4 (quota-cdi), wired as docs/runtimes.md says, built with Maven
 * against the artifacts this build installed (Quarkus as an uber-jar), run as a process of its own
 * against a real Redis, and asked what {@link ConsumerBuildsTest} asks the other runtimes: 200 with
 * RateLimit headers, 401 for an unknown key, anonymous callers per client address, transfers decided
 * with their amount, an import charged its rows and at most two of them running at once, a statement
 * that ends after exactly the rows its caller's plan had left.
 *
 * <p>Wired wrongly on purpose, an {@code Application} that lists its resources but not
 * {@code QuotaProviders}: on Quarkus the resource methods are refused 503, never served unlimited;
 * Helidon adds the discovered provider to such an application, so it is enforced there.
 *
 * <p>Helidon 4 needs Java 21 or later, found as Maven toolchains would ({@link Jdks}); without one,
 * its tests are skipped saying so. The builds run as {@link ConsumerBuilds} says; a project is run as
 * soon as its build is done, one at a time on a flushed Redis.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class QuarkusAndHelidonBuildsTest {

    private static final String ACME_KEY = "acme-demo-key-0001";
    private static final String UNLISTED = ConsumerBuilds.UNLISTED;
    private static final String UNLISTED_BEAN = ConsumerBuilds.UNLISTED_BEAN;
    private static final String HELIDON = ConsumerBuilds.HELIDON;

    private static ConsumerBuilds builds;

    /** Enforced as the README wires them. */
    static List<String> enforced() {
        return List.of("quarkus-rest", "quarkus-rest-cdi", "quarkus-resteasy-cdi", HELIDON);
    }

    /** An Application listing its resources without QuotaProviders: refused. */
    static List<String> refused() {
        return List.of("quarkus-rest-cdi" + UNLISTED, "quarkus-resteasy-cdi" + UNLISTED, HELIDON + UNLISTED_BEAN);
    }

    @BeforeAll
    static void buildEveryProject() {
        builds = ConsumerBuilds.get();
    }

    private static ConsumerProject built(String name) throws InterruptedException {
        if (name.startsWith(HELIDON)) {
            Assumptions.assumeTrue(builds.jdk21().isPresent(), "Helidon MP 4 needs a JDK 21 or later, and none is"
                    + " installed where Maven toolchains would find one: " + Jdks.searched());
        }
        return builds.built(name);
    }

    private static ConsumerProject.Running start(ConsumerProject project) {
        return builds.start(project);
    }

    @Order(1)
    @ParameterizedTest(name = "{0}")
    @MethodSource("enforced")
    void consumerProject_answersAsTheReadmeSays(String name) throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            ConsumerBuildsTest.answersAsTheReadmeSays(service);
            if (name.endsWith("-cdi")) {
                assertThat(service.output()).contains("quota: on, every resource method of this application is counted");
            }
        }
    }

    @Order(2)
    @ParameterizedTest(name = "{0}")
    @MethodSource("enforced")
    void transfers_areDecidedWithTheirAmount_429_422_400_neverA500(String name) throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            ConsumerBuildsTest.decidesTransfersWithTheirAmount(service);
        }
    }

    @Order(3)
    @ParameterizedTest(name = "{0}")
    @MethodSource("enforced")
    void requestsTheRuntimeRefuses_405And415_costAToken_andAreLimited(String name) throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            ReadmeChecks.runtimeRefusals(service.port(), "", service::output);
        }
    }

    @Order(4)
    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void anApplicationListingItsClassesWithoutQuotaProviders_isRefused503_neverServedUnlimited(String name)
            throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            RawHttp.Answer export = RawHttp.get("127.0.0.1", service.port(), "/api/v1/accounts/7/export",
                    "X-API-Key", ACME_KEY);
            assertThat(export.status()).as("an export, quota not registered; %s", service.output()).isEqualTo(503);
            assertThat(export.header("Content-Type")).startsWith("application/problem+json");
            assertThat(export.body()).contains("\"type\":\"urn:quota:problem:quota-not-enforced\"");
            assertThat(export.header("RateLimit")).isNull();

            String output = service.awaitOutput("quota: example.ExportResource.export was called without quota's"
                    + " filters having seen the request, so it is refused 503", ConsumerProject.START_TIMEOUT);
            assertThat(output).contains("does not register dev.quota.cdi.QuotaProviders")
                    .doesNotContain("quota: on");
        }
    }

    @Order(5)
    @org.junit.jupiter.api.Test
    void helidon_ignoresAnApplicationThatIsNotACdiBean_andEnforcesTheResourcesItDiscovers()
            throws InterruptedException {
        try (ConsumerProject.Running service = start(built(HELIDON + UNLISTED))) {
            assertThat(service.output()).contains("quota: on, every resource method of this application is counted");
            RawHttp.Answer export = RawHttp.get("127.0.0.1", service.port(), "/api/v1/accounts/7/export",
                    "X-API-Key", ACME_KEY);
            assertThat(export.status()).as("%s", service.output()).isEqualTo(200);
            assertThat(export.header("RateLimit")).startsWith("\"free-burst\";r=10;t=1, ");
        }
    }

    /**
     * The hybrid wiring (operations.md, "Registering your own QuotaFeature over quota-cdi's
     * service"): quota-cdi builds the service from settings and the application, an
     * {@code @ApplicationScoped Application} listing its resources, registers its own QuotaFeature
     * over that service with Helidon's client address. Its requests are enforced, never refused 503
     * {@code quota-not-enforced}, and counted once (a second count would leave the export's burst
     * at 0 and refuse the first anonymous export): the exports and anonymous callers answer exactly
     * as with quota-cdi's own providers, and it is the application's feature that counts (its
     * client address is asked).
     */
    @Order(5)
    @org.junit.jupiter.api.Test
    void helidon_anApplicationRegisteringItsOwnQuotaFeatureOverQuotaCdisService_isEnforced_countedOnce()
            throws InterruptedException {
        try (ConsumerProject.Running service = start(built(HELIDON + ConsumerBuilds.OWN_FEATURE))) {
            ConsumerBuildsTest.answersAsTheReadmeSays(service);
            assertThat(service.output()).doesNotContain("quota-not-enforced")
                    .contains("example: client address from the application's own QuotaFeature");
        }
    }

    @Order(6)
    @ParameterizedTest(name = "{0}")
    @MethodSource("enforced")
    void imports_areChargedTheirRows_andAtMostTwoRunAtOnce(String name) throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            ReadmeChecks.importsSettledAndInFlight(service.port(), "", 2000, service::output);
        }
    }

    /** Last: the statement spends its caller's plan to the end. */
    @Order(7)
    @ParameterizedTest(name = "{0}")
    @MethodSource("enforced")
    void statement_streamsExactlyTheRowsThePlanHasLeft_endsCleanly_andTheNextIs429(String name)
            throws InterruptedException {
        try (ConsumerProject.Running service = start(built(name))) {
            ReadmeChecks.statementEndsWhenThePlanDoes(service.port(), "", service::output);
            boolean quarkusRest = List.of("quarkus-rest", "quarkus-rest-cdi").contains(name);
            ReadmeChecks.clientGoneMidDownload(service.port(), "", service::output, !quarkusRest);
            ReadmeChecks.clientGoneMidUpload(service.port(), "", service::output, !quarkusRest);
        }
    }
}
