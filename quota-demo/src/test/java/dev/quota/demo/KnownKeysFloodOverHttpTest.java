package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RawHttp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The keys that keep working from an address blocked for guessing, attacked over HTTP: one valid
 * but spent key sent from thousands of source addresses (Linux lets a client socket bind to any
 * 127.x.y.z), then a guesser behind a NAT. The NAT's own customers keep their answers; a key whose
 * every request was refused is known nowhere. Another customer on another address asks for its
 * account every 100 ms during the flood, answered within 1 s each time.
 */
class KnownKeysFloodOverHttpTest {

    private static final String RATES = "/api/v1/rates";
    private static final String FREE = "demo-free-key";
    private static final String PRO = "demo-pro-key";
    private static final String ENTERPRISE = "demo-enterprise-key";
    private static final String SAV = "demo-sav2001-key";
    /** A NAT's address, with customers of its own behind it. */
    private static final String NAT = "127.200.0.1";
    /** Another customer's address, asking for its account every 100 ms during the flood. */
    private static final String LEGITIMATE = "127.0.0.31";
    /** Source addresses of the flood: 127.100.0.0 to 127.100.11.183. */
    private static final int FLOOD_ADDRESSES = 3_000;
    private static final int REQUESTS_PER_ADDRESS = 2;

    private static RunningDemo demo;

    @BeforeAll
    static void start() {
        demo = RunningDemo.start();
    }

    @AfterAll
    static void stop() {
        if (demo != null) {
            demo.close();
        }
    }

    private static RawHttp.Answer rates(String from, String key) {
        return RawHttp.get(from, demo.api.getPort(), RATES, "X-API-Key", key);
    }

    private static String floodAddress(int i) {
        return "127.100." + (i >> 8) + "." + (i & 255);
    }

    private static void guessElevenKeys(String from) {
        for (int i = 0; i < 10; i++) {
            assertThat(rates(from, "guessed-key-" + i).status()).as("guess %d from %s", i + 1, from).isEqualTo(401);
        }
        RawHttp.Answer eleventh = rates(from, "guessed-key-10");
        assertThat(eleventh.status()).as("guess 11 from %s", from).isEqualTo(429);
        assertThat(eleventh.body()).contains("\"type\":\"urn:quota:problem:too-many-failed-keys\"");
    }

    /**
     * What broke: a key was remembered at an address even when its request was refused for quota,
     * so one spent key sent from 130,000 addresses evicted a NAT's entries, and its customers got
     * {@code 429 too-many-failed-keys} once a guesser behind it was blocked. The flood here is
     * smaller than the table; what it must not do is make the spent key known anywhere, which is
     * how it filled the table.
     */
    @Test
    void spentKeyFromThousandsOfAddresses_leavesANatsKeysWorking_andIsKnownNowhere_regressionForKnownKeysFlood()
            throws Exception {
        // behind the NAT: one colleague's key used once, another's three times
        assertThat(rates(NAT, PRO).status()).isEqualTo(200);
        for (int i = 0; i < 3; i++) {
            assertThat(rates(NAT, ENTERPRISE).status()).isEqualTo(200);
        }
        // the free plan's burst of 20 on a frozen clock: spent
        for (int i = 0; i < 20; i++) {
            assertThat(rates("127.0.0.1", FREE).status()).as("free request %d", i + 1).isEqualTo(200);
        }

        List<RawHttp.Answer> flood = new ArrayList<>();
        ExecutorService senders = Executors.newFixedThreadPool(4);
        try (LegitimateCaller legitimate = LegitimateCaller.start(LEGITIMATE, demo.api.getPort())) {
            List<Future<List<RawHttp.Answer>>> sent = new ArrayList<>();
            for (int a = 0; a < FLOOD_ADDRESSES; a++) {
                String from = floodAddress(a);
                sent.add(senders.submit(() -> {
                    List<RawHttp.Answer> answers = new ArrayList<>();
                    for (int r = 0; r < REQUESTS_PER_ADDRESS; r++) {
                        answers.add(rates(from, FREE));
                    }
                    return answers;
                }));
            }
            for (Future<List<RawHttp.Answer>> answers : sent) {
                flood.addAll(answers.get());
            }
            assertThat(legitimate.worstMillis()).as("another customer's worst latency in ms, asking every 100 ms"
                    + " during the flood").isLessThan(1_000);
            assertThat(legitimate.statuses()).isNotEmpty().containsOnly(200);
        } finally {
            senders.shutdownNow();
        }
        assertThat(flood).hasSize(FLOOD_ADDRESSES * REQUESTS_PER_ADDRESS)
                .allSatisfy(answer -> {
                    assertThat(answer.status()).isEqualTo(429);
                    assertThat(answer.body()).contains("\"limit\":\"free-burst\"");
                });

        guessElevenKeys(NAT);

        assertThat(rates(NAT, PRO).status()).as("the key used once from the NAT").isEqualTo(200);
        assertThat(rates(NAT, ENTERPRISE).status()).as("the key used three times from the NAT").isEqualTo(200);
        RawHttp.Answer newColleague = rates(NAT, SAV);
        assertThat(newColleague.status()).as("a key never used from the NAT").isEqualTo(429);
        assertThat(newColleague.body()).contains("\"type\":\"urn:quota:problem:too-many-failed-keys\"");

        // the spent key was refused from every flood address, so it is known at none of them: once
        // one of them is blocked for guessing, it is refused there like a guess, before its quota
        String flooder = floodAddress(FLOOD_ADDRESSES - 1);
        guessElevenKeys(flooder);
        RawHttp.Answer spent = rates(flooder, FREE);
        assertThat(spent.status()).isEqualTo(429);
        assertThat(spent.body()).as("refused as a key not known there, not for its quota")
                .contains("\"type\":\"urn:quota:problem:too-many-failed-keys\"");
    }
}
