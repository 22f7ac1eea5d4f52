package dev.quota.core;

import dev.quota.core.internal.WholeSeconds;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where one limit stands for one caller after a decision.
 *
 * <p>A value: equal when every field is. Made by {@link #of}; a field added in a later release gets
 * a default and a {@code with...} method, so code that builds statuses (a listener's test) keeps
 * compiling.
 */
public final class LimitStatus {

    /** What a limit counts, which decides where its status may be shown. */
    public enum Role {
        /** A limit of the customer's plan: its requests. Advertised in the {@code RateLimit} headers. */
        PLAN,
        /** An endpoint rule's limit, per customer: its requests. Advertised. */
        RULE,
        /**
         * An endpoint rule's limit that every customer shares: its remaining tokens tell of other
         * customers' activity, so it is not advertised, and a 429 does not say what is left.
         */
        SHARED,
        /** An amount limit (money moved per day): not requests, so not advertised. */
        AMOUNT,
        /** Requests with an unknown API key from one client address ({@code identity.failedKeys}). Advertised. */
        FAILED_KEYS,
        /**
         * Requests of the customer running at once ({@link Concurrency}): not a rate, so not in the
         * {@code RateLimit} headers; a refusal by it has no retry-after.
         */
        IN_FLIGHT
    }

    /**
     * A limit as one caller's statuses name it: its policy name, the limit as enforced, its role.
     * The same for every status of that limit, so a decision's statuses share the one their bucket
     * keeps ({@link Draw.Shape}) instead of three fields each.
     */
    record Head(String policy, Limit limit, Role role) {
        /** @throws NullPointerException if an argument is null */
        Head {
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(limit, "limit");
            Objects.requireNonNull(role, "role");
        }
    }

    private final Head head;
    private final long remaining;
    /**
     * The time until full in nanoseconds, when the status was made of them ({@link #ofNanos}); its
     * {@code Duration} is made when asked for: most decisions' statuses are never read for it, and
     * a transfer's six statuses made six of them. Unused (-1) when a {@code Duration} was given.
     */
    private final long resetNanos;
    /** Null until {@link #resetAfter()} makes it of {@link #resetNanos}; a racy make makes an equal one. */
    private @Nullable Duration resetAfter;
    private final Duration retryAfter;

    private LimitStatus(Head head, long remaining, @Nullable Duration resetAfter, long resetNanos,
                        Duration retryAfter) {
        this.head = head;
        this.remaining = remaining;
        this.resetAfter = resetAfter;
        this.resetNanos = resetNanos;
        this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
    }

    /**
     * A status: {@code free-burst} (capacity 20, refill 10 per second) with 0 left, full again in 2 s,
     * and the request decided could pass in 0.1 s.
     *
     * @param policy     the policy name as it appears in {@code RateLimit-Policy}: {@code <plan>-<limit>}
     *                   for plan limits, {@code <rule>-<limit>} for rule limits, {@code <amounts>-<limit>}
     *                   for amount limits
     * @param limit      the limit as enforced for this caller (overrides applied)
     * @param role       what the limit counts
     * @param remaining  tokens left after this decision
     * @param resetAfter time until the bucket is full again (zero when it is full)
     * @param retryAfter time until the request that was just decided could pass on this limit alone
     *                   (zero when this limit had enough tokens)
     * @throws NullPointerException if an argument is null
     */
    public static LimitStatus of(String policy, Limit limit, Role role, long remaining, Duration resetAfter,
                                 Duration retryAfter) {
        return new LimitStatus(new Head(policy, limit, role), remaining,
                Objects.requireNonNull(resetAfter, "resetAfter"), -1, retryAfter);
    }

    /**
     * {@link #of} of the limit {@code head} names, with the time until full in nanoseconds: its
     * {@code Duration} made when asked for.
     */
    static LimitStatus ofNanos(Head head, long remaining, long resetNanos, Duration retryAfter) {
        return new LimitStatus(head, remaining, null, resetNanos, retryAfter);
    }

    /** The policy name as it appears in {@code RateLimit-Policy}, such as {@code free-burst}. */
    public String policy() {
        return head.policy();
    }

    /** The limit as enforced for this caller (overrides applied). */
    public Limit limit() {
        return head.limit();
    }

    /** What the limit counts. */
    public Role role() {
        return head.role();
    }

    /** Tokens left after this decision. */
    public long remaining() {
        return remaining;
    }

    /** Time until the bucket is full again; zero when it is full. */
    public Duration resetAfter() {
        Duration reset = resetAfter;
        if (reset == null) {
            reset = Duration.ofNanos(resetNanos);
            resetAfter = reset;
        }
        return reset;
    }

    /** Time until the decided request could pass on this limit alone; zero when it had enough tokens. */
    public Duration retryAfter() {
        return retryAfter;
    }

    /** This status with another time until the decided request could pass (a block's time left). */
    public LimitStatus withRetryAfter(Duration retryAfter) {
        return new LimitStatus(head, remaining, this.resetAfter, resetNanos, retryAfter);
    }

    /** This status with another time until the bucket is full again. */
    public LimitStatus withResetAfter(Duration resetAfter) {
        return new LimitStatus(head, remaining, Objects.requireNonNull(resetAfter, "resetAfter"), -1, retryAfter);
    }

    /**
     * {@link #resetAfter} in whole seconds rounded up, as clients are told it: 0 when full, 1 for
     * 0.2 s, 60 for exactly a minute.
     */
    public long resetSeconds() {
        Duration reset = resetAfter;
        if (reset != null) {
            return WholeSeconds.ceil(reset);
        }
        // what ceil of Duration.ofNanos(resetNanos) is, without making it
        return resetNanos <= 0 ? 0 : resetNanos / 1_000_000_000L + (resetNanos % 1_000_000_000L == 0 ? 0 : 1);
    }

    /** Whether this limit lacked tokens for the decided request. */
    public boolean exhausted() {
        return !retryAfter.isZero();
    }

    /**
     * Whether this status belongs in the {@code RateLimit} headers the caller sees: the caller's own
     * request rate limits ({@link Role#PLAN}, {@link Role#RULE}, {@link Role#FAILED_KEYS}).
     */
    public boolean advertised() {
        Role role = head.role();
        return role != Role.SHARED && role != Role.AMOUNT && role != Role.IN_FLIGHT;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof LimitStatus other && head.equals(other.head) && remaining == other.remaining && resetAfter().equals(other.resetAfter())
                && retryAfter.equals(other.retryAfter);
    }

    @Override
    public int hashCode() {
        return Objects.hash(head.policy(), head.limit(), head.role(), remaining, resetAfter(), retryAfter);
    }

    @Override
    public String toString() {
        return "LimitStatus[policy=" + head.policy() + ", limit=" + head.limit() + ", role=" + head.role()
                + ", remaining=" + remaining
                + ", resetAfter=" + resetAfter() + ", retryAfter=" + retryAfter + "]";
    }
}
