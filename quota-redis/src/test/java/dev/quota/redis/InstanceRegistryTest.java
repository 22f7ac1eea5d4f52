package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.testkit.Await;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Instances counting each other through one real Redis. Heartbeats are run by hand (the
 * background interval is an hour) except where the background thread itself is the subject.
 */
class InstanceRegistryTest {

    private static final Duration BY_HAND = Duration.ofHours(1);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private final List<RedisStore> stores = new ArrayList<>();
    private final List<InstanceRegistry> registries = new ArrayList<>();

    /** Every test starts with an empty Redis, running again if the last test killed it. */
    @BeforeEach
    void freshRedis() {
        redis.server().restart();
    }

    @AfterEach
    void stopAll() {
        registries.forEach(InstanceRegistry::close);
        stores.forEach(RedisStore::close);
    }

    private InstanceRegistry register(Duration interval, Duration ttl) {
        RedisStore store = RedisStore.builder().uri(redis.uri()).build();
        stores.add(store);
        InstanceRegistry registry = InstanceRegistry.builder(store.client()).heartbeatInterval(interval)
                .timeToLive(ttl).build();
        registries.add(registry);
        return registry;
    }

    @Test
    void threeInstances_eachCountThree() {
        InstanceRegistry a = register(BY_HAND, BY_HAND.multipliedBy(3));
        InstanceRegistry b = register(BY_HAND, BY_HAND.multipliedBy(3));
        InstanceRegistry c = register(BY_HAND, BY_HAND.multipliedBy(3));

        a.heartbeat();
        b.heartbeat();

        assertThat(List.of(a.liveInstances(), b.liveInstances(), c.liveInstances())).containsExactly(3, 3, 3);
        try (RespClient resp = RespClient.connect(redis.server().host(), redis.server().port())) {
            assertThat(resp.command("ZCARD", "quota:instances")).isEqualTo(3L);
            assertThat((Long) resp.command("PTTL", "quota:instances")).isPositive();
        }
    }

    @Test
    void threeInstances_haveTheRanks0To2_inTheOrderOfTheirIds() {
        List<InstanceRegistry> three = List.of(register(BY_HAND, BY_HAND.multipliedBy(3)),
                register(BY_HAND, BY_HAND.multipliedBy(3)), register(BY_HAND, BY_HAND.multipliedBy(3)));

        three.forEach(InstanceRegistry::heartbeat);

        List<String> ids = three.stream().map(InstanceRegistry::instanceId).sorted().toList();
        assertThat(three).allSatisfy(registry -> assertThat(registry.rank()).as(registry.instanceId())
                .isEqualTo(ids.indexOf(registry.instanceId())));
        assertThat(three.stream().map(InstanceRegistry::rank)).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    void aClosedInstance_leavesAtOnce() {
        InstanceRegistry a = register(BY_HAND, BY_HAND.multipliedBy(3));
        register(BY_HAND, BY_HAND.multipliedBy(3));
        InstanceRegistry c = register(BY_HAND, BY_HAND.multipliedBy(3));

        c.close();
        a.heartbeat();

        assertThat(a.liveInstances()).isEqualTo(2);
    }

    @Test
    void aCrashedInstance_dropsOutAfterItsTimeToLive() {
        InstanceRegistry a = register(BY_HAND, BY_HAND.multipliedBy(3));
        register(Duration.ofMillis(100), Duration.ofMillis(300));
        a.heartbeat();
        assertThat(a.liveInstances()).isEqualTo(2);

        // b's process "dies": its connection is gone, so it neither renews nor deregisters
        stores.get(1).close();

        // member scores are Redis time: this waits on Redis' clock, bounded
        Await.until(Duration.ofSeconds(5), () -> {
            a.heartbeat();
            return a.liveInstances() == 1;
        }, () -> "b's registration to expire");

        assertThat(a.liveInstances()).isEqualTo(1);
    }

    @Test
    void whileRedisIsDown_keepsTheLastCount() {
        InstanceRegistry a = register(BY_HAND, BY_HAND.multipliedBy(3));
        register(BY_HAND, BY_HAND.multipliedBy(3));
        register(BY_HAND, BY_HAND.multipliedBy(3));
        a.heartbeat();

        redis.server().kill();

        assertThat(a.heartbeat()).isFalse();
        assertThat(a.liveInstances()).isEqualTo(3);
    }

    @Test
    void backgroundHeartbeat_seesInstancesThatJoinLater() {
        InstanceRegistry a = register(Duration.ofMillis(50), Duration.ofMillis(500));
        register(Duration.ofMillis(50), Duration.ofMillis(500));

        Await.until(Duration.ofSeconds(5), () -> a.liveInstances() == 2, () -> "a's heartbeat to count b");

        assertThat(a.liveInstances()).isEqualTo(2);
    }

    @Test
    void aloneOrUnreachable_isNeverBelowOne() {
        RedisStore store = RedisStore.builder().uri(redis.uri()).build();
        stores.add(store);
        redis.server().kill();

        InstanceRegistry lonely = InstanceRegistry.builder(store.client()).heartbeatInterval(BY_HAND).build();
        registries.add(lonely);

        assertThat(lonely.liveInstances()).isEqualTo(1);
    }

    @Test
    void builder_rejectsATimeToLiveNotLongerThanTheInterval() {
        RedisStore store = RedisStore.builder().uri(redis.uri()).build();
        stores.add(store);
        InstanceRegistry.Builder builder = InstanceRegistry.builder(store.client())
                .heartbeatInterval(Duration.ofSeconds(2)).timeToLive(Duration.ofSeconds(2));

        assertThatThrownBy(builder::build)
                .hasMessage("timeToLive PT2S must be longer than heartbeatInterval PT2S");
        assertThatThrownBy(() -> builder.keyPrefix("a b"))
                .hasMessage("key prefix must match [A-Za-z0-9_.-]{1,32} but was \"a b\"");
    }
}
