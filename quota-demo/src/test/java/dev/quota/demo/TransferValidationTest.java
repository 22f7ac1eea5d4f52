package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad transfer bodies: each is a 400 problem listing the bad fields, never a 500. */
class TransferValidationTest {

    static RunningDemo demo;
    static URI transfers;

    @BeforeAll
    static void start() {
        demo = RunningDemo.start();
        transfers = demo.api.resolve("transfers");
    }

    @AfterAll
    static void stop() {
        if (demo != null) {
            demo.close();
        }
    }

    @BeforeEach
    void nextDay() {
        // each bad body also counts against the 10 transfers per minute
        demo.nextDay();
    }

    static Stream<Arguments> badBodies() {
        String ok = "\"from\":\"ACC-1001\",\"to\":\"ACC-2001\",";
        String oneEuro = "\"amount\":\"1.00\",\"currency\":\"EUR\"}";
        return Stream.of(
                Arguments.of("not JSON", "from=ACC-1001&amount=5",
                        List.of("body: is not valid JSON (line 1, column 6)")),
                Arguments.of("array", "[1,2]", List.of("body: must be a JSON object such as "
                        + "{\"from\":\"ACC-1001\",\"to\":\"ACC-2001\",\"amount\":\"125.00\",\"currency\":\"EUR\"}")),
                Arguments.of("trailing garbage", "{" + ok + "\"amount\":\"1.00\",\"currency\":\"EUR\"} x",
                        List.of("body: is not valid JSON (line 1, column 71)")),
                Arguments.of("everything missing", "{}", List.of("from: is required", "to: is required",
                        "amount: is required", "currency: is required")),
                Arguments.of("negative amount", "{" + ok + "\"amount\":\"-5.00\",\"currency\":\"EUR\"}",
                        List.of("amount: must be greater than 0")),
                Arguments.of("zero amount", "{" + ok + "\"amount\":\"0.00\",\"currency\":\"EUR\"}",
                        List.of("amount: must be greater than 0")),
                Arguments.of("three decimals", "{" + ok + "\"amount\":\"1.234\",\"currency\":\"EUR\"}",
                        List.of("amount: must have at most 2 decimals")),
                Arguments.of("amount with comma", "{" + ok + "\"amount\":\"12,50\",\"currency\":\"EUR\"}",
                        List.of("amount: must be a decimal string such as \"125.00\"")),
                Arguments.of("amount as JSON number", "{" + ok + "\"amount\":125.5,\"currency\":\"EUR\"}",
                        List.of("amount: must be a decimal string such as \"125.00\" but was a JSON number")),
                Arguments.of("huge amount", "{" + ok + "\"amount\":\"99999999999999999999\",\"currency\":\"EUR\"}",
                        List.of("amount: must be at most 1000000000.00")),
                Arguments.of("unknown currency", "{" + ok + "\"amount\":\"1.00\",\"currency\":\"JPY\"}",
                        List.of("currency: must be one of EUR, GBP, USD")),
                Arguments.of("another currency than the account's", "{" + ok + "\"amount\":\"1.00\",\"currency\":\"USD\"}",
                        List.of("currency: must be the debited account's currency, EUR")),
                Arguments.of("lower-case currency", "{" + ok + "\"amount\":\"1.00\",\"currency\":\"eur\"}",
                        List.of("currency: must be one of EUR, GBP, USD")),
                Arguments.of("same account", "{\"from\":\"ACC-1001\",\"to\":\"ACC-1001\"," + oneEuro,
                        List.of("to: must differ from from")),
                Arguments.of("garbage account", "{\"from\":\"../../etc/passwd\",\"to\":{}," + oneEuro,
                        List.of("from: must be an account id such as \"ACC-1001\"",
                                "to: must be an account id such as \"ACC-1001\" but was a JSON object")),
                Arguments.of("unknown account", "{\"from\":\"ACC-9999\",\"to\":\"ACC-2001\"," + oneEuro,
                        List.of("from: no such account")),
                Arguments.of("unknown field", "{" + ok + "\"amount\":\"1.00\",\"currency\":\"EUR\",\"memo\":\"hi\"}",
                        List.of("memo: unknown field (allowed: from, to, amount, currency)")),
                Arguments.of("field twice", "{" + ok + "\"amount\":\"900.00\"," + oneEuro,
                        List.of("body: is not valid JSON: a field appears twice (line 1, column 62)")),
                Arguments.of("body over 16 KB", "{\"memo\":\"" + "x".repeat(17_000) + "\"}",
                        List.of("body: must be at most 16384 bytes")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badBodies")
    void transfer_withBadBody_gets400ListingEachBadField(String name, String body, List<String> expected) {
        HttpResponse<String> response = Http.postJson(transfers, body, "X-API-Key", "demo-pro-key");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(Http.header(response, "Content-Type")).startsWith("application/problem+json");
        JsonNode problem = Http.json(response);
        assertThat(problem.get("type").asText()).isEqualTo("urn:quota-demo:problem:invalid-request");
        assertThat(problem.get("status").asInt()).isEqualTo(400);
        List<String> errors = new ArrayList<>();
        problem.get("errors").forEach(e -> errors.add(e.get("field").asText() + ": " + e.get("message").asText()));
        assertThat(errors).containsExactlyElementsOf(expected);
    }

    @Test
    void transfer_withoutABody_gets400FromTheAmountCheck_beforeAnyAmountIsTaken() {
        HttpResponse<String> response = Http.postJson(transfers, "", "X-API-Key", "demo-pro-key");

        assertThat(response.statusCode()).isEqualTo(400);
        JsonNode problem = Http.json(response);
        assertThat(problem.get("type").asText()).isEqualTo("urn:quota:problem:invalid-amount");
        assertThat(problem.get("detail").asText()).isEqualTo("The request's amount cannot be checked: the body is missing.");
    }
}
