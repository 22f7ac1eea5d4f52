package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.AllowList;
import dev.quota.core.Mode;
import dev.quota.core.QuotaService;
import dev.quota.core.config.ApiKeys;
import dev.quota.core.net.Cidr;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Allow-listed callers bypass limiting; shadow mode lets would-be rejections through, marked. */
class AllowListAndModesTest {

    private static final ClientAddress TEST_ADDRESS = request -> request.getHeaderString("X-Test-Address");

    private Fixture fixture;

    @AfterEach
    void stop() {
        fixture.close();
    }

    private void start(TestConfig config) {
        fixture = Fixture.with(config).feature(f -> f.clientAddress(TEST_ADDRESS)).start();
    }

    private HttpResponse<String> acme() {
        return fixture.server.get("/api/v1/accounts/1", "X-API-Key", TestConfig.ACME_KEY);
    }

    private static void assertBypassed(HttpResponse<String> response) {
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Quota-Status")).hasValue("bypassed");
        assertThat(response.headers().firstValue("RateLimit")).isEmpty();
        assertThat(response.headers().firstValue("RateLimit-Policy")).isEmpty();
        assertThat(response.headers().firstValue("X-RateLimit-Remaining")).isEmpty();
    }

    @Test
    void allowListedCustomerId_isNeverLimited_andSaysSo() {
        start(TestConfig.standard().allow(new AllowList(Set.of("acme"), Set.of(), List.of())));

        for (int i = 0; i < 25; i++) {
            assertBypassed(acme());
        }
    }

    @Test
    void allowListedApiKeyHash_isNeverLimited() {
        start(TestConfig.standard()
                .allow(new AllowList(Set.of(), Set.of(ApiKeys.sha256Hex(TestConfig.ACME_KEY)), List.of())));

        for (int i = 0; i < 25; i++) {
            assertBypassed(acme());
        }
    }

    @Test
    void allowListedAddressRange_isNeverLimited_othersAre() {
        start(TestConfig.standard().allow(new AllowList(Set.of(), Set.of(), List.of(Cidr.parse("10.0.0.0/8")))));

        for (int i = 0; i < 8; i++) {
            assertBypassed(fixture.server.get("/api/v1/accounts/1", "X-Test-Address", "10.1.2.3"));
        }
        for (int i = 0; i < 5; i++) {
            assertThat(fixture.server.get("/api/v1/accounts/1", "X-Test-Address", "203.0.113.7").statusCode())
                    .isEqualTo(200);
        }
        assertThat(fixture.server.get("/api/v1/accounts/1", "X-Test-Address", "203.0.113.7").statusCode())
                .isEqualTo(429);
    }

    @Test
    void disabledConfig_bypassesEveryone() {
        start(TestConfig.standard().enabled(false));

        for (int i = 0; i < 25; i++) {
            assertBypassed(acme());
        }
    }

    @Test
    void shadowMode_letsTheRequestThrough_withQuotaStatusAndTheUsualHeaders() {
        start(TestConfig.standard().mode(Mode.SHADOW));
        for (int i = 0; i < 20; i++) {
            assertThat(acme().headers().firstValue("Quota-Status")).isEmpty();
        }

        HttpResponse<String> response = acme();

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("account 1");
        assertThat(response.headers().firstValue("Quota-Status")).hasValue("shadow-rejected; policy=\"free-burst\"");
        assertThat(response.headers().firstValue("RateLimit-Policy")).hasValue("\"free-burst\";q=20;w=2");
        assertThat(response.headers().firstValue("RateLimit")).isPresent();
        assertThat(response.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        assertThat(response.headers().firstValue("Retry-After")).isEmpty();
    }

    @Test
    void enforceMode_stillRejects_theSameRequest() {
        start(TestConfig.standard());
        for (int i = 0; i < 20; i++) {
            acme();
        }

        assertThat(acme().statusCode()).isEqualTo(429);
    }
}
