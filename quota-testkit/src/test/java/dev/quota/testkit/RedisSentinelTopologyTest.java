package dev.quota.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RedisSentinelTopologyTest {

    @Test
    void failover_promotesTheReplica_whichAcceptsWrites() {
        try (RedisSentinelTopology topology = RedisSentinelTopology.start()) {
            RedisServer oldMaster = topology.master();
            RedisServer replica = topology.replica();
            assertThat(topology.masterName()).isEqualTo("quota-master");
            assertThat(topology.sentinelAddresses()).hasSize(3).allMatch(a -> a.startsWith("redis://127.0.0.1:"));
            assertThat(oldMaster).isNotSameAs(replica);
            try (RespClient client = RespClient.connect(oldMaster.host(), oldMaster.port())) {
                assertThat(client.command("SET", "before", "failover")).isEqualTo("OK");
                // the replica must have the write before we kill the master, or it is lost (async replication)
                assertThat(client.command("WAIT", "1", "5000")).isEqualTo(1L);
            }

            RedisServer newMaster = topology.failover();

            assertThat(oldMaster.isRunning()).isFalse();
            assertThat(newMaster).isSameAs(replica).isSameAs(topology.master());
            assertThat(newMaster.port()).isNotEqualTo(oldMaster.port());
            for (String sentinel : topology.sentinelAddresses()) {
                int port = Integer.parseInt(sentinel.substring(sentinel.lastIndexOf(':') + 1));
                try (RespClient client = RespClient.connect("127.0.0.1", port)) {
                    assertThat(client.command("SENTINEL", "get-master-addr-by-name", "quota-master"))
                            .isEqualTo(List.of("127.0.0.1", Integer.toString(newMaster.port())));
                }
            }
            try (RespClient client = RespClient.connect(newMaster.host(), newMaster.port())) {
                assertThat(RespClient.infoField(client.info("replication"), "role")).isEqualTo("master");
                assertThat(client.command("GET", "before")).isEqualTo("failover");
                assertThat(client.command("SET", "after", "failover")).isEqualTo("OK");
                assertThat(client.command("GET", "after")).isEqualTo("failover");
            }
        }
    }

    @Test
    void start_replicatesFromMasterToReplica() {
        try (RedisSentinelTopology topology = RedisSentinelTopology.start()) {
            RedisServer master = topology.master();
            RedisServer replica = topology.replica();
            try (RespClient m = RespClient.connect(master.host(), master.port());
                    RespClient r = RespClient.connect(replica.host(), replica.port())) {
                m.command("SET", "k", "v");
                assertThat(m.command("WAIT", "1", "5000")).isEqualTo(1L);

                assertThat(r.command("GET", "k")).isEqualTo("v");
                assertThat(RespClient.infoField(r.info("replication"), "role")).isEqualTo("slave");
                // tests stall data nodes with DEBUG SLEEP, which Redis 7 refuses unless enabled
                assertThat(m.command("DEBUG", "SLEEP", "0")).isEqualTo("OK");
                assertThat(r.command("DEBUG", "SLEEP", "0")).isEqualTo("OK");
            }
        }
    }
}
