package dev.quota.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.Identity;
import dev.quota.core.net.Cidr;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Who an anonymous caller is behind proxies: X-Forwarded-For believed only from trusted peers. */
class TrustedProxiesTest {

    /** Every test request comes from loopback, so the test names the connection's peer in a header. */
    private static final ClientAddress PEER = request -> request.getHeaderString("X-Test-Peer");

    private static final Identity BEHIND_PROXIES = Identity.builder()
            .trustedProxies(List.of(Cidr.parse("10.0.0.0/8"), Cidr.parse("fd00::/8"))).build();

    private Fixture fixture;

    @AfterEach
    void stop() {
        fixture.close();
    }

    private void start(Identity identity) {
        fixture = Fixture.with(TestConfig.standard().identity(identity))
                .feature(f -> f.clientAddress(PEER))
                .start();
    }

    private String whoami(String peer, String... forwardedFor) {
        String[] headers = new String[2 + 2 * forwardedFor.length];
        headers[0] = "X-Test-Peer";
        headers[1] = peer;
        for (int i = 0; i < forwardedFor.length; i++) {
            headers[2 + 2 * i] = "X-Forwarded-For";
            headers[3 + 2 * i] = forwardedFor[i];
        }
        return fixture.server.get("/api/v1/whoami", headers).body();
    }

    @Test
    void spoofedForwardedFor_fromAnUntrustedPeer_isIgnored() {
        start(BEHIND_PROXIES);

        assertThat(whoami("203.0.113.7", "198.51.100.1")).isEqualTo("ip:203.0.113.7 on anonymous");
        assertThat(whoami("203.0.113.7", "10.0.0.1")).isEqualTo("ip:203.0.113.7 on anonymous");
    }

    @Test
    void spoofedForwardedFor_withoutTrustedProxiesConfigured_isIgnoredEvenFromPrivatePeers() {
        start(Identity.DEFAULT);

        assertThat(whoami("10.0.0.5", "198.51.100.1")).isEqualTo("ip:10.0.0.5 on anonymous");
    }

    @Test
    void forwardedFor_fromATrustedPeer_givesTheRightMostUntrustedHop() {
        start(BEHIND_PROXIES);

        // 198.51.100.9 was written by the client itself and may be a lie; 203.0.113.7 connected to our proxy
        assertThat(whoami("10.0.0.5", "198.51.100.9, 203.0.113.7, 10.0.0.9")).isEqualTo("ip:203.0.113.7 on anonymous");
        assertThat(whoami("10.0.0.5", "198.51.100.9", "203.0.113.7")).isEqualTo("ip:203.0.113.7 on anonymous");
    }

    @Test
    void malformedForwardedFor_fromATrustedPeer_fallsBackToTheLastTrustedHop() {
        start(BEHIND_PROXIES);

        assertThat(whoami("10.0.0.5", "not-an-address")).isEqualTo("ip:10.0.0.5 on anonymous");
        assertThat(whoami("10.0.0.5", "203.0.113.7, bogus, 10.0.0.9")).isEqualTo("ip:10.0.0.9 on anonymous");
        assertThat(whoami("10.0.0.5", "")).isEqualTo("ip:10.0.0.5 on anonymous");
    }

    @Test
    void ipv6Callers_shareOneBucketPerSlash64_soRotatingAddressesDoesNotHelp() {
        start(BEHIND_PROXIES);

        assertThat(whoami("2001:db8:1:2::a")).isEqualTo("ip:2001:db8:1:2::/64 on anonymous");
        for (int i = 1; i < 5; i++) {
            assertThat(fixture.server.get("/api/v1/accounts/1", "X-Test-Peer", "2001:db8:1:2::" + i).statusCode())
                    .isEqualTo(200);
        }
        HttpResponse<String> rotated = fixture.server.get("/api/v1/accounts/1", "X-Test-Peer", "2001:db8:1:2:ffff::1");
        HttpResponse<String> otherNetwork = fixture.server.get("/api/v1/accounts/1", "X-Test-Peer", "2001:db8:1:3::1");

        assertThat(rotated.statusCode()).isEqualTo(429);
        assertThat(otherNetwork.statusCode()).isEqualTo(200);
    }

    @Test
    void ipv6Prefix_fromTheConfig_setsTheGroupSize() {
        start(Identity.builder().ipv6Prefix(48).build());

        assertThat(whoami("2001:db8:1:2::a")).isEqualTo("ip:2001:db8:1::/48 on anonymous");
    }

    @Test
    void ipv6ForwardedFor_fromATrustedIpv6Proxy_isGrouped() {
        start(BEHIND_PROXIES);

        assertThat(whoami("fd00::1", "[2001:db8:9:9::77]:443")).isEqualTo("ip:2001:db8:9:9::/64 on anonymous");
    }

    @Test
    void userHeader_isBelievedOnlyFromATrustedProxy_andOnlyWhenConfigured() {
        Identity withUserHeader = Identity.builder().trustedProxies(List.of(Cidr.parse("10.0.0.0/8")))
                .userHeader("X-User-Id").build();
        start(withUserHeader);

        assertThat(fixture.server.get("/api/v1/whoami", "X-Test-Peer", "10.0.0.5", "X-User-Id", "alice").body())
                .isEqualTo("user:alice on anonymous");
        assertThat(fixture.server.get("/api/v1/whoami", "X-Test-Peer", "203.0.113.7", "X-User-Id", "alice").body())
                .isEqualTo("ip:203.0.113.7 on anonymous");
    }

    @Test
    void userHeader_isNeverReadByDefault_evenFromATrustedProxy() {
        start(BEHIND_PROXIES);

        assertThat(fixture.server.get("/api/v1/whoami", "X-Test-Peer", "10.0.0.5", "X-User-Id", "alice").body())
                .isEqualTo("ip:10.0.0.5 on anonymous");
    }
}
