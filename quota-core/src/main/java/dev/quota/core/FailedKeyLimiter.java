package dev.quota.core;

import dev.quota.core.internal.BucketUse;
import dev.quota.core.internal.Keys;
import dev.quota.core.net.ClientAddresses;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts failed API-key lookups per client address in the shared store, and remembers in this JVM
 * which addresses are blocked so their next requests are refused before any key is looked up.
 */
final class FailedKeyLimiter {

    /** Blocked addresses remembered at most; beyond that, expired ones are dropped, then all. */
    static final int MAX_BLOCKED = 10_000;
    /** The prefix of the failed-keys policy name: {@code identity-failed-keys}. */
    static final String POLICY_PREFIX = "identity";

    private static final QuotaDecision NOT_BLOCKED =
            new QuotaDecision(QuotaDecision.Outcome.ALLOWED, List.of(), null, Duration.ZERO);

    private final Keys keys;
    private final BucketRunner runner;
    private final Clock clock;
    private final Map<String, Blocked> blocked = new ConcurrentHashMap<>();

    FailedKeyLimiter(Keys keys, BucketRunner runner, Clock clock) {
        this.keys = keys;
        this.runner = runner;
        this.clock = clock;
    }

    /** The address as it is counted: IPv6 grouped by the configured prefix; unparsable text as is. */
    static String group(QuotaConfig cfg, String clientAddress) {
        InetAddress address = ClientAddresses.parse(clientAddress);
        return address == null ? clientAddress : ClientAddresses.group(address, cfg.identity().ipv6Prefix());
    }

    /** Takes one token for a failed lookup from {@code group}'s bucket; remembers a rejection. */
    QuotaDecision record(QuotaConfig cfg, String group) {
        Limit limit = cfg.identity().failedKeys();
        QuotaDecision decision = runner.run(divisor -> {
            List<BucketUse> uses = new ArrayList<>(1);
            BucketUse.plan(uses, keys.failedKeys(group), POLICY_PREFIX, List.of(limit), 1.0 / divisor, 1, true,
                    cfg.version(), clock.instant(), FailurePolicy.LOCAL, cfg.mode());
            return uses;
        });
        if (decision.outcome() == QuotaDecision.Outcome.REJECTED) {
            remember(group, decision);
        }
        return decision;
    }

    /** The remembered block of {@code group}, with the time left, or an empty ALLOWED decision. */
    QuotaDecision peek(String group) {
        Blocked block = blocked.get(group);
        if (block == null) {
            return NOT_BLOCKED;
        }
        Duration left = Duration.between(clock.instant(), block.until());
        if (left.isNegative() || left.isZero()) {
            blocked.remove(group, block);
            return NOT_BLOCKED;
        }
        LimitStatus violated = block.decision().violated();
        LimitStatus now = new LimitStatus(violated.policy(), violated.limit(), violated.remaining(),
                min(violated.resetAfter(), left), left, true);
        return new QuotaDecision(QuotaDecision.Outcome.REJECTED, List.of(now), now, left);
    }

    private void remember(String group, QuotaDecision decision) {
        if (blocked.size() >= MAX_BLOCKED) {
            Instant now = clock.instant();
            blocked.values().removeIf(b -> !b.until().isAfter(now));
            if (blocked.size() >= MAX_BLOCKED) {
                blocked.clear();
            }
        }
        blocked.put(group, new Blocked(clock.instant().plus(decision.retryAfter()), decision));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private record Blocked(Instant until, QuotaDecision decision) {
    }
}
