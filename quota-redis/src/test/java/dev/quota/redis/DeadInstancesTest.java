package dev.quota.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.spi.LeaseHolder;
import dev.quota.testkit.RedisExtension;
import dev.quota.testkit.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Which instances the registry declares dead, on one real Redis, with the default margin (5 s).
 * Heartbeats are run by hand (the background interval is an hour, so the time to live is two); a
 * killed instance is what it leaves in Redis: a member whose registration ended at a given Redis
 * time.
 */
class DeadInstancesTest {

    private static final Duration BY_HAND = Duration.ofHours(1);
    private static final Duration TTL = BY_HAND.multipliedBy(2);
    private static final long MARGIN_MS = 5_000;

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private final List<RedisStore> stores = new ArrayList<>();
    private final List<InstanceRegistry> registries = new ArrayList<>();
    private final AtomicLong nanos = new AtomicLong();

    @BeforeEach
    void freshRedis() {
        redis.server().restart();
    }

    @AfterEach
    void stopAll() {
        registries.forEach(InstanceRegistry::close);
        stores.forEach(RedisStore::close);
    }

    /** A registry with the default time to live and margin, beating by hand, on {@link #nanos}. */
    private InstanceRegistry register() {
        RedisStore store = RedisStore.builder().uri(redis.uri()).build();
        stores.add(store);
        InstanceRegistry registry = InstanceRegistry.builder(store.client()).heartbeatInterval(BY_HAND)
                .timeToLive(TTL).nanoTime(nanos::get).build();
        registries.add(registry);
        return registry;
    }

    private static Object redis(String... command) {
        try (RespClient resp = RespClient.connect(redis.server().host(), redis.server().port())) {
            return resp.command(command);
        }
    }

    /** Redis' clock in milliseconds: what registrations are scored with. */
    private static long redisMillis() {
        List<?> time = (List<?>) redis("TIME");
        return Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
    }

    /** Leaves {@code member} in the set as an instance whose registration ended {@code agoMs} ago. */
    private static void endedAgo(String member, long agoMs) {
        redis("ZADD", "quota:instances", Long.toString(redisMillis() - agoMs), member);
    }

    @Test
    void anInstanceSilentForItsTimeToLiveAndTheMargin_isDeclaredDead_andEveryHeartbeatTellsItsTag() {
        InstanceRegistry a = register();
        endedAgo("killed", MARGIN_MS + 1_000);

        a.heartbeat();

        assertThat(a.leaseHolder().deadTags()).containsExactly(LeaseHolder.tagOf("killed"));
        assertThat(a.liveInstances()).isEqualTo(1);
        assertThat(redis("ZSCORE", "quota:instances", "killed")).isNull();
        assertThat(redis("ZSCORE", "{quota:instances}:dead", "killed")).isNotNull();
        InstanceRegistry b = register(); // registers with a first heartbeat
        assertThat(b.leaseHolder().deadTags()).as("told to an instance started later")
                .containsExactly(LeaseHolder.tagOf("killed"));
    }

    @Test
    void anInstanceWhoseRegistrationEndedWithinTheMargin_isNoLongerLive_butNotDeclaredDead() {
        InstanceRegistry a = register();
        endedAgo("paused", MARGIN_MS - 2_000);

        a.heartbeat();

        assertThat(a.liveInstances()).as("not counted").isEqualTo(1);
        assertThat(a.leaseHolder().deadTags()).as("its leases kept").isEmpty();
        assertThat(redis("ZSCORE", "quota:instances", "paused")).isNotNull();
    }

    @Test
    void aLiveInstance_isNeverDeclaredDead() {
        InstanceRegistry a = register();
        InstanceRegistry b = register();

        a.heartbeat();
        b.heartbeat();

        assertThat(a.leaseHolder().deadTags()).isEmpty();
        assertThat(b.leaseHolder().deadTags()).isEmpty();
        assertThat(a.liveInstances()).isEqualTo(2);
    }

    @Test
    void anInstanceDeclaredDeadThatComesBack_registersUnderANewId_andItsOldTagStaysDead() {
        InstanceRegistry a = register();
        InstanceRegistry paused = register();
        String before = paused.instanceId();
        endedAgo(before, MARGIN_MS + 1_000); // a pause longer than its time to live and the margin
        a.heartbeat();
        assertThat(a.leaseHolder().deadTags()).containsExactly(LeaseHolder.tagOf(before));

        paused.heartbeat();

        assertThat(paused.instanceId()).isNotEqualTo(before);
        assertThat(paused.leaseHolder().tag()).isEqualTo(LeaseHolder.tagOf(paused.instanceId()));
        assertThat(paused.leaseHolder().deadTags()).containsExactly(LeaseHolder.tagOf(before));
        a.heartbeat();
        assertThat(a.liveInstances()).isEqualTo(2);
        assertThat(a.leaseHolder().deadTags()).as("the new id is live").containsExactly(LeaseHolder.tagOf(before));
    }

    @Test
    void leasesAreTagged_onlyWhileThisInstancesRegistrationIsCertainlyValid() {
        InstanceRegistry a = register(); // its first heartbeat was sent at nanos 0
        long tag = LeaseHolder.tagOf(a.instanceId());
        assertThat(a.leaseHolder().tag()).isEqualTo(tag);

        nanos.set(TTL.toNanos() - 1);
        assertThat(a.leaseHolder().tag()).as("a nanosecond before its time to live").isEqualTo(tag);
        nanos.set(TTL.toNanos());
        assertThat(a.leaseHolder().tag()).as("without a heartbeat since: held to their deadline").isZero();

        a.heartbeat();
        assertThat(a.leaseHolder().tag()).isEqualTo(tag);
    }

    @Test
    void whileRedisIsDown_noTagAfterTheTimeToLive_andTheLastDeadSetIsKept() {
        InstanceRegistry a = register();
        endedAgo("killed", MARGIN_MS + 1_000);
        a.heartbeat();
        redis.server().kill();

        nanos.set(TTL.toNanos());
        assertThat(a.heartbeat()).isFalse();

        assertThat(a.leaseHolder().tag()).isZero();
        assertThat(a.leaseHolder().deadTags()).containsExactly(LeaseHolder.tagOf("killed"));
    }

    @Test
    void aNegativeMargin_isRefused() {
        RedisStore store = RedisStore.builder().uri(redis.uri()).build();
        stores.add(store);
        assertThatThrownBy(() -> InstanceRegistry.builder(store.client()).deadMargin(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("deadMargin must be >= 0 but was PT-0.001S");
    }
}
