package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The demo endpoint where an in-flight limit can be watched ({@link ReportsResource}, rule
 * {@code reports}, {@code concurrency: 2}): two reports of one caller run, the third is refused
 * {@code too-many-in-flight} without {@code Retry-After}, the caller's own view shows 2 of 2 held,
 * and once they have answered the next one runs. The held reports take 10 s of real time: the time
 * a running request holds its lease is what is shown.
 */
class InFlightReportsTest {

    private static final String KEY = "X-API-Key";
    private static final String PRO = "demo-pro-key";

    static RunningDemo demo;
    static URI api;

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

    @Test
    void twoReportsRun_theThirdIs429TooManyInFlight_theQuotaViewShowsTwoOfTwo_andTheNextRunsOnceTheyEnd()
            throws Exception {
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(
                () -> Http.get(api.resolve("reports/slow?seconds=10"), KEY, PRO));
        CompletableFuture<HttpResponse<String>> second = CompletableFuture.supplyAsync(
                () -> Http.get(api.resolve("reports/slow?seconds=10"), KEY, PRO));
        JsonNode reports = awaitHeld(2);

        HttpResponse<String> third = Http.get(api.resolve("reports/slow?seconds=0"), KEY, PRO);

        assertThat(third.statusCode()).isEqualTo(429);
        assertThat(third.body()).startsWith("{\"type\":\"urn:quota:problem:too-many-in-flight\"");
        assertThat(third.headers().firstValue("Retry-After")).isEmpty();
        assertThat(reports.get("limit").asLong()).isEqualTo(2);
        assertThat(reports.get("leaseTimeoutSeconds").asLong()).isEqualTo(120);
        assertThat(reports.get("oldestDeadline").asText()).isNotEmpty();

        assertThat(first.get().statusCode()).isEqualTo(200);
        assertThat(second.get().body()).isEqualTo("{\"seconds\":10,\"report\":\"done\"}");
        assertThat(Http.get(api.resolve("reports/slow?seconds=0"), KEY, PRO).statusCode()).isEqualTo(200);
    }

    @Test
    void aReportOfMoreThanAMinute_is400() {
        HttpResponse<String> response = Http.get(api.resolve("reports/slow?seconds=61"), KEY, PRO);

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("seconds").contains("must be 0 to 60");
    }

    /** The caller's {@code reports-in-flight} entry of {@code GET /api/v1/quota}, once {@code held} are held. */
    private static JsonNode awaitHeld(long held) throws InterruptedException {
        // each look costs a request of the plan (a burst of 100, and the demo's clock stands still)
        for (int attempt = 0; attempt < 80; attempt++) {
            HttpResponse<String> view = Http.get(api.resolve("quota"), KEY, PRO);
            assertThat(view.statusCode()).as(view.body()).isEqualTo(200);
            JsonNode standing = Http.json(view);
            for (JsonNode limit : standing.get("inFlight")) {
                if (limit.get("policy").asText().equals("reports-in-flight") && limit.get("held").asLong() == held) {
                    return limit;
                }
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("reports-in-flight never showed " + held + " held");
    }
}
