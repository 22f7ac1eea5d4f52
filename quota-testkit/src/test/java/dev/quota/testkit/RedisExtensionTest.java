package dev.quota.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * Runs small example test classes through the JUnit engine, records the ports their Redis had, and
 * checks afterwards that nothing listens there any more.
 */
class RedisExtensionTest {

    private static volatile boolean runningExamples;

    /** The examples run only inside {@link #run}, not when a tool picks them up as tests of their own. */
    static boolean runningExamples() {
        return runningExamples;
    }

    @Test
    void standalone_startsOneServerBeforeTheClass_sharedByItsTests_andClosesItAfter() {
        StandaloneExample.ports.clear();
        StandaloneExample.dirs.clear();

        run(StandaloneExample.class).testEvents().assertStatistics(stats -> stats.started(2).succeeded(2));

        // the @BeforeAll method and both tests saw one server, already answering
        assertThat(StandaloneExample.ports).hasSize(3).containsOnly(StandaloneExample.ports.get(0));
        assertClosed(StandaloneExample.ports.get(0));
        assertThat(StandaloneExample.dirs).hasSize(1).allSatisfy(dir -> assertThat(dir).doesNotExist());
    }

    @Test
    void standalone_whenATestFails_isClosedAllTheSame() {
        FailingExample.ports.clear();

        run(FailingExample.class).testEvents()
                .assertThatEvents().haveExactly(1, event(test("fails"), finishedWithFailure(message("on purpose"))));

        assertThat(FailingExample.ports).hasSize(1);
        assertClosed(FailingExample.ports.get(0));
    }

    @Test
    void extendWith_resolvesTheServer_sharesItWithNestedClasses_andClosesItAfterTheOuterClass() {
        ExtendWithExample.ports.clear();

        run(ExtendWithExample.class).testEvents().assertStatistics(stats -> stats.started(2).succeeded(2));

        // constructor of the outer class, its test, constructor of the nested class (with the outer's), its test
        assertThat(ExtendWithExample.ports).hasSize(5).containsOnly(ExtendWithExample.ports.get(0));
        assertClosed(ExtendWithExample.ports.get(0));
    }

    @Test
    void sentinel_startsMasterReplicaAndSentinels_andClosesEveryOne() {
        SentinelExample.ports.clear();

        run(SentinelExample.class).testEvents().assertStatistics(stats -> stats.started(1).succeeded(1));

        assertThat(SentinelExample.ports).hasSize(5).doesNotHaveDuplicates();
        SentinelExample.ports.forEach(RedisExtensionTest::assertClosed);
    }

    @Test
    void cluster_startsThreeMasters_andClosesEveryOneWithItsBusPort() {
        ClusterExample.ports.clear();

        run(ClusterExample.class).testEvents().assertStatistics(stats -> stats.started(1).succeeded(1));

        assertThat(ClusterExample.ports).hasSize(3).doesNotHaveDuplicates();
        for (int port : ClusterExample.ports) {
            assertClosed(port);
            assertClosed(port + 10_000);
        }
    }

    @Test
    void instanceField_failsEachTestSayingTheFieldMustBeStatic() {
        EngineExecutionResults results = run(InstanceFieldExample.class);

        results.testEvents().assertThatEvents().haveExactly(1, event(test("needsRedis"),
                finishedWithFailure(instanceOf(ExtensionConfigurationException.class), message(m -> m.contains(
                        "register it on a static field")))));
    }

    @Test
    void accessors_ofAnotherKind_orOutsideTheClass_throw() {
        RedisExtension cluster = RedisExtension.cluster();

        assertThatThrownBy(cluster::server).isInstanceOf(IllegalStateException.class)
                .hasMessage("this RedisExtension runs a cluster, not a standalone server");
        assertThatThrownBy(cluster::uri).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RedisExtension.standalone().sentinelTopology())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("this RedisExtension runs a standalone server, not a sentinel topology");
        assertThatThrownBy(cluster::addresses).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("a cluster is not running");
        assertThatThrownBy(() -> new RedisExtension().server()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("before the first test of its class");
    }

    private static EngineExecutionResults run(Class<?> example) {
        runningExamples = true;
        try {
            return EngineTestKit.engine("junit-jupiter").selectors(selectClass(example)).execute();
        } finally {
            runningExamples = false;
        }
    }

    private static void assertClosed(int port) {
        assertThatThrownBy(() -> RespClient.connect("127.0.0.1", port, Duration.ofSeconds(1)).close())
                .as("port %d", port)
                .isInstanceOf(UncheckedIOException.class)
                .hasRootCauseInstanceOf(ConnectException.class);
    }

    private static void assertAnswers(RedisServer server) {
        try (RespClient client = RespClient.connect(server.host(), server.port())) {
            assertThat(client.command("PING")).isEqualTo("PONG");
        }
    }

    @EnabledIf("dev.quota.testkit.RedisExtensionTest#runningExamples")
    static class StandaloneExample {

        @RegisterExtension
        static final RedisExtension redis = RedisExtension.standalone();

        static final List<Integer> ports = new CopyOnWriteArrayList<>();
        static final List<Path> dirs = new CopyOnWriteArrayList<>();

        @BeforeAll
        static void serverIsUpBeforeTheFirstTest(RedisServer server) {
            assertAnswers(server);
            ports.add(server.port());
            dirs.add(server.logFile().getParent());
        }

        @Test
        void byField() {
            assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.server().port());
            assertThat(redis.addresses()).containsExactly(redis.uri());
            try (RespClient client = RespClient.connect(redis.server().host(), redis.server().port())) {
                assertThat(client.command("SET", "k", "v")).isEqualTo("OK");
            }
            ports.add(redis.server().port());
        }

        @Test
        void byParameter(RedisServer server) {
            assertThat(server).isSameAs(redis.server());
            assertThat(Files.isDirectory(server.logFile().getParent())).isTrue();
            ports.add(server.port());
        }
    }

    @EnabledIf("dev.quota.testkit.RedisExtensionTest#runningExamples")
    static class FailingExample {

        @RegisterExtension
        static final RedisExtension redis = RedisExtension.standalone();

        static final List<Integer> ports = new CopyOnWriteArrayList<>();

        @Test
        void fails() {
            ports.add(redis.server().port());
            throw new AssertionError("on purpose");
        }
    }

    @EnabledIf("dev.quota.testkit.RedisExtensionTest#runningExamples")
    @ExtendWith(RedisExtension.class)
    static class ExtendWithExample {

        static final List<Integer> ports = new CopyOnWriteArrayList<>();

        ExtendWithExample(RedisServer server) {
            ports.add(server.port());
        }

        @Test
        void outer(RedisServer server) {
            assertAnswers(server);
            ports.add(server.port());
        }

        @Nested
        class Inner {

            Inner(RedisServer server) {
                ports.add(server.port());
            }

            @Test
            void inner(RedisServer server) {
                assertAnswers(server);
                ports.add(server.port());
            }
        }
    }

    @EnabledIf("dev.quota.testkit.RedisExtensionTest#runningExamples")
    static class SentinelExample {

        @RegisterExtension
        static final RedisExtension redis = RedisExtension.sentinel();

        static final List<Integer> ports = new CopyOnWriteArrayList<>();

        @Test
        void topology(RedisSentinelTopology topology) {
            assertThat(topology).isSameAs(redis.sentinelTopology());
            assertThat(redis.addresses()).isEqualTo(topology.sentinelAddresses()).hasSize(3);
            assertAnswers(topology.master());
            ports.add(topology.master().port());
            ports.add(topology.replica().port());
            topology.sentinels().forEach(sentinel -> ports.add(sentinel.port()));
        }
    }

    @EnabledIf("dev.quota.testkit.RedisExtensionTest#runningExamples")
    static class ClusterExample {

        @RegisterExtension
        static final RedisExtension redis = RedisExtension.cluster();

        static final List<Integer> ports = new CopyOnWriteArrayList<>();

        @Test
        void topology(RedisClusterTopology cluster) {
            assertThat(cluster).isSameAs(redis.clusterTopology());
            assertThat(redis.addresses()).isEqualTo(cluster.nodeAddresses()).hasSize(3);
            cluster.masters().forEach(RedisExtensionTest::assertAnswers);
            cluster.masters().forEach(master -> ports.add(master.port()));
        }
    }

    @EnabledIf("dev.quota.testkit.RedisExtensionTest#runningExamples")
    static class InstanceFieldExample {

        @RegisterExtension
        final RedisExtension redis = RedisExtension.standalone();

        @Test
        void needsRedis() {
            redis.server();
        }
    }
}
