package dev.quota.demo;

import dev.quota.testkit.BusyCores;
import org.junit.jupiter.api.extension.ExtendWith;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.testkit.RedisServer;
import dev.quota.testkit.RespClient;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The packaged jar as separate processes, the way a service runs in production: three JVMs,
 * each with its own Redis client, share one Redis and so one limit.
 */
@ExtendWith(BusyCores.class)
class MultiProcessIT {

    @Test
    void threeProcesses_300ConcurrentRequestsOfOneCustomer_admitExactly30() throws Exception {
        String config = Configs.file("shared-30.yaml").toString();
        List<DemoProcess> demos = new ArrayList<>();
        try (RedisServer redis = RedisServer.start()) {
            try {
                for (int i = 1; i <= 3; i++) {
                    demos.add(DemoProcess.start("instance-" + i, "--redis", redis.uri(), "--config", config));
                }
                List<URI> instances = demos.stream().map(DemoProcess::baseUri).toList();

                Map<Integer, Long> statuses = Burst.fire(instances, 300);

                assertThat(statuses).containsOnly(Map.entry(200, 30L), Map.entry(429, 270L));
                for (DemoProcess demo : demos) {
                    assertThat(demo.output()).contains("quota-demo: store = redis standalone " + redis.uri() + "\n");
                }
            } finally {
                demos.forEach(DemoProcess::close);
            }
        }
    }

    @Test
    void sigterm_stopsTheDemoAndItsPrivateRedis() throws Exception {
        DemoProcess demo = DemoProcess.start("private-redis");
        int redisPort;
        try {
            Matcher store = Pattern.compile("store = redis standalone redis://127\\.0\\.0\\.1:(\\d+) "
                    + "\\(private server started by the demo\\)").matcher(demo.output());
            assertThat(store.find()).as("banner names the private Redis:\n%s", demo.output()).isTrue();
            redisPort = Integer.parseInt(store.group(1));
            assertThat(answersPing(redisPort)).isTrue();
        } finally {
            demo.close();
        }

        assertThat(demo.process().waitFor(1, TimeUnit.SECONDS)).isTrue();
        // 143: ended by SIGTERM, after the shutdown hook ran
        assertThat(demo.process().exitValue()).isEqualTo(143);
        assertThat(demo.output()).contains("quota-demo: stopped");
        assertThat(answersPing(redisPort)).as("redis-server on port %d still running", redisPort).isFalse();
    }

    private static boolean answersPing(int port) {
        try (RespClient client = RespClient.connect("127.0.0.1", port, Duration.ofMillis(500))) {
            return "PONG".equals(client.command("PING"));
        } catch (RuntimeException e) {
            return false;
        }
    }
}
