package dev.quota.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RedisClusterTopologyTest {

    private static RedisClusterTopology cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterTopology.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void slot_matchesKnownValuesAndHashTags() {
        assertThat(RedisClusterTopology.slot("foo")).isEqualTo(12182);
        assertThat(RedisClusterTopology.slot("bar")).isEqualTo(5061);
        assertThat(RedisClusterTopology.slot("{user1000}.following"))
                .isEqualTo(RedisClusterTopology.slot("{user1000}.followers"))
                .isEqualTo(RedisClusterTopology.slot("user1000"));
        assertThat(RedisClusterTopology.slot("foo{}{bar}")).isNotEqualTo(RedisClusterTopology.slot("bar"));
    }

    @Test
    void slot_agreesWithRedisClusterKeyslot() {
        RedisServer node = cluster.masters().get(0);
        List<String> keys = List.of("", "a", "foo", "{", "}", "{}", "{}x", "foo{}{bar}", "foo{{bar}}zap",
                "foo{bar}{zap}", "{user1000}.following", "quota:acme:minute", "héllo", "日本", "x".repeat(300));
        try (RespClient client = RespClient.connect(node.host(), node.port())) {
            for (String key : keys) {
                assertThat(RedisClusterTopology.slot(key)).as(key)
                        .isEqualTo(((Long) client.command("CLUSTER", "KEYSLOT", key)).intValue());
            }
        }
    }

    @Test
    void start_formsAClusterOfThreeMasters() {
        assertThat(cluster.masters()).hasSize(3);
        assertThat(cluster.nodeAddresses()).hasSize(3).doesNotHaveDuplicates()
                .allMatch(a -> a.startsWith("redis://127.0.0.1:"));
        for (RedisServer node : cluster.masters()) {
            try (RespClient client = RespClient.connect(node.host(), node.port())) {
                String info = (String) client.command("CLUSTER", "INFO");
                assertThat(RespClient.infoField(info, "cluster_state")).isEqualTo("ok");
                assertThat(RespClient.infoField(info, "cluster_size")).isEqualTo("3");
                // tests stall cluster nodes with DEBUG SLEEP, which Redis 7 refuses unless enabled
                assertThat(client.command("DEBUG", "SLEEP", "0")).isEqualTo("OK");
            }
        }
    }

    @Test
    void masterForSlot_isTheNodeThatAcceptsTheKey_andOthersRedirect() {
        String key = "foo";
        int slot = RedisClusterTopology.slot(key);
        RedisServer owner = cluster.masterForSlot(slot);
        RedisServer other = cluster.masters().stream().filter(m -> m != owner).findFirst().orElseThrow();

        try (RespClient client = RespClient.connect(owner.host(), owner.port())) {
            assertThat(client.command("SET", key, "bar")).isEqualTo("OK");
            assertThat(client.command("GET", key)).isEqualTo("bar");
        }
        try (RespClient client = RespClient.connect(other.host(), other.port())) {
            assertThatThrownBy(() -> client.command("SET", key, "bar"))
                    .isInstanceOfSatisfying(RespClient.RedisErrorReply.class,
                            e -> assertThat(e.code()).isEqualTo("MOVED"))
                    .hasMessage("MOVED " + slot + " 127.0.0.1:" + owner.port());
        }
        assertThatThrownBy(() -> cluster.masterForSlot(16384))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("16384");
    }

    @Test
    void keysPerMaster_countsKeysWrittenToTheirOwners() {
        Map<String, Long> expected = new HashMap<>();
        cluster.nodeAddresses().forEach(address -> expected.put(address, 0L));
        for (RedisServer node : cluster.masters()) {
            try (RespClient client = RespClient.connect(node.host(), node.port())) {
                client.flushAll();
            }
        }
        for (int i = 0; i < 60; i++) {
            String key = "customer:" + i;
            RedisServer owner = cluster.masterForSlot(RedisClusterTopology.slot(key));
            try (RespClient client = RespClient.connect(owner.host(), owner.port())) {
                assertThat(client.command("SET", key, "v")).isEqualTo("OK");
            }
            expected.merge(owner.uri(), 1L, Long::sum);
        }

        Map<String, Long> actual = cluster.keysPerMaster();

        assertThat(actual).isEqualTo(expected).hasSize(3);
        assertThat(actual.values()).allMatch(count -> count > 0);
        assertThat(actual.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(60);
    }
}
