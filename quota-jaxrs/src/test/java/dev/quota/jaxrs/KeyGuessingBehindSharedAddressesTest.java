package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Identity;
import dev.quota.core.net.Cidr;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Attack: guessing API keys from behind an address many customers share, a NAT or a proxy the
 * config does not trust. The guesser blocks the address for keys that have not worked from it, so
 * guessing gets nowhere, while the keys of customers who already work from there keep working and
 * every other address is unaffected. With the proxy listed in {@code identity.trustedProxies}, the
 * client behind it is known and only the guesser is blocked.
 */
class KeyGuessingBehindSharedAddressesTest {

    static final String GLOBEX_KEY = "globex-key-0123456789";
    static final String NAT = "203.0.113.5";
    static final String PROXY = "10.0.0.5";
    static final String GUESSER = "198.51.100.9";
    static final String NEIGHBOUR = "198.51.100.10";
    static final String ELSEWHERE = "192.0.2.20";

    private Fixture fixture;

    @AfterEach
    void stop() {
        fixture.close();
    }

    private void start(List<Cidr> trustedProxies, Identity.WhileBlocked whileBlocked) {
        fixture = Fixture.start(TestConfig.standard()
                .customer("globex", "free", GLOBEX_KEY)
                .identity(Identity.builder().trustedProxies(trustedProxies).whileBlocked(whileBlocked).build()));
    }

    /** A request with {@code key} from {@code peer}, with {@code X-Forwarded-For: client} when client is not null. */
    private HttpResponse<String> get(String peer, String client, String key) {
        List<String> headers = new ArrayList<>(List.of(Fixture.PEER_HEADER, peer, "X-API-Key", key));
        if (client != null) {
            headers.addAll(List.of("X-Forwarded-For", client));
        }
        return fixture.server.get("/api/v1/accounts/1", headers.toArray(String[]::new));
    }

    /** Eleven unknown keys: ten 401s, then the address is blocked. */
    private void guess(String peer, String client) {
        for (int i = 0; i < 10; i++) {
            assertThat(get(peer, client, "guess-" + i).statusCode()).as("guess %d", i + 1).isEqualTo(401);
        }
        HttpResponse<String> blocked = get(peer, client, "guess-10");
        assertThat(blocked.statusCode()).isEqualTo(429);
        assertThat(blocked.body()).contains("\"type\":\"urn:quota:problem:too-many-failed-keys\"");
    }

    @Test
    void behindANat_aKnownKeyKeepsWorking_aNewValidKeyIsRefused_otherAddressesAreUnaffected() {
        start(List.of(), Identity.WhileBlocked.KNOWN_KEYS);
        assertThat(get(NAT, null, TestConfig.ACME_KEY).statusCode()).as("acme works from the NAT").isEqualTo(200);

        guess(NAT, null);

        assertThat(get(NAT, null, TestConfig.ACME_KEY).statusCode()).as("acme, known there").isEqualTo(200);
        HttpResponse<String> newKey = get(NAT, null, GLOBEX_KEY);
        assertThat(newKey.statusCode()).as("globex, valid but new there").isEqualTo(429);
        assertThat(newKey.headers().firstValue("Retry-After")).hasValue("6");
        assertThat(newKey.body()).contains("too-many-failed-keys").doesNotContain("globex");
        assertThat(get(ELSEWHERE, null, GLOBEX_KEY).statusCode()).as("globex elsewhere").isEqualTo(200);
        assertThat(get(ELSEWHERE, null, "guess-11").statusCode()).as("a wrong key elsewhere").isEqualTo(401);

        fixture.clock.advance(Duration.ofSeconds(6));
        assertThat(get(NAT, null, GLOBEX_KEY).statusCode()).as("globex once the block has passed").isEqualTo(200);
    }

    @Test
    void behindAnUntrustedProxy_everyClientIsTheProxy_soTheGuesserBlocksNewKeysForAllOfThem() {
        start(List.of(), Identity.WhileBlocked.KNOWN_KEYS);
        assertThat(get(PROXY, NEIGHBOUR, TestConfig.ACME_KEY).statusCode()).isEqualTo(200);

        guess(PROXY, GUESSER);

        assertThat(get(PROXY, NEIGHBOUR, TestConfig.ACME_KEY).statusCode()).as("acme, known from the proxy")
                .isEqualTo(200);
        assertThat(get(PROXY, NEIGHBOUR, GLOBEX_KEY).statusCode())
                .as("globex behind the same proxy: the proxy is all the service can see").isEqualTo(429);
        assertThat(get(PROXY, "192.0.2.99", "guess-x").statusCode())
                .as("a new X-Forwarded-For from an untrusted peer changes nothing").isEqualTo(429);
        assertThat(get(ELSEWHERE, null, GLOBEX_KEY).statusCode()).as("globex not behind the proxy").isEqualTo(200);
    }

    @Test
    void behindATrustedProxy_onlyTheGuesserIsBlocked() {
        start(List.of(Cidr.parse("10.0.0.0/8")), Identity.WhileBlocked.KNOWN_KEYS);

        guess(PROXY, GUESSER);

        assertThat(get(PROXY, GUESSER, GLOBEX_KEY).statusCode()).as("the guesser, with a valid key").isEqualTo(429);
        assertThat(get(PROXY, NEIGHBOUR, GLOBEX_KEY).statusCode()).as("a neighbour behind the proxy, new key")
                .isEqualTo(200);
        assertThat(get(PROXY, NEIGHBOUR, "guess-y").statusCode()).as("the neighbour's own wrong key")
                .isEqualTo(401);
    }

    @Test
    void directGuesser_cannotEscapeItsBlockWithAForwardedForHeader() {
        start(List.of(Cidr.parse("10.0.0.0/8")), Identity.WhileBlocked.KNOWN_KEYS);

        guess(GUESSER, null);

        for (int i = 0; i < 5; i++) {
            assertThat(get(GUESSER, "192.0.2." + (100 + i), GLOBEX_KEY).statusCode()).isEqualTo(429);
        }
    }

    @Test
    void withNoKeysWhileBlocked_evenAKnownKeyIsRefusedUntilTheBlockPasses() {
        start(List.of(), Identity.WhileBlocked.NO_KEYS);
        assertThat(get(NAT, null, TestConfig.ACME_KEY).statusCode()).isEqualTo(200);

        guess(NAT, null);

        assertThat(get(NAT, null, TestConfig.ACME_KEY).statusCode()).isEqualTo(429);
        assertThat(get(ELSEWHERE, null, TestConfig.ACME_KEY).statusCode()).isEqualTo(200);
        fixture.clock.advance(Duration.ofSeconds(6));
        assertThat(get(NAT, null, TestConfig.ACME_KEY).statusCode()).isEqualTo(200);
    }
}
