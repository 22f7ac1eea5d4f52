package dev.quota.jaxrs;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.quota.core.net.ClientAddresses;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Failed admin-token attempts per client address, in this JVM: a token bucket of
 * {@code maxFailures} per address that gets one attempt back every {@code retryEvery}. With 5 and
 * 10 s: five wrong tokens are answered 401, then the address is blocked (429 with
 * {@code Retry-After}) and gets one more attempt every 10 s, whatever token it sends. Calls
 * refused while blocked take nothing, so they do not push the next attempt further away.
 *
 * <p>IPv6 addresses count per /64 (one host usually holds a whole /64). The table holds at most
 * {@code maxAddresses} addresses (least recently used dropped first) and drops an address once its
 * bucket would be full again, so its memory is bounded whatever clients send.
 */
final class AdminThrottle {

    /** Addresses remembered at most. */
    static final int MAX_ADDRESSES = 10_000;
    /** Longer client address texts (only from a custom {@link ClientAddress}) are cut to this. */
    private static final int MAX_KEY_LENGTH = 64;

    private final int maxFailures;
    private final Duration retryEvery;
    private final Clock clock;
    private final Cache<String, Bucket> buckets;

    AdminThrottle(int maxFailures, Duration retryEvery, Clock clock, int maxAddresses) {
        this.maxFailures = maxFailures;
        this.retryEvery = retryEvery;
        this.clock = clock;
        this.buckets = Caffeine.newBuilder()
                .maximumSize(maxAddresses)
                // a bucket untouched this long is full again: forgetting it changes nothing
                .expireAfterWrite(retryEvery.multipliedBy(maxFailures))
                .ticker(() -> {
                    Instant now = clock.instant();
                    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
                })
                .executor(Runnable::run)
                .build();
    }

    /** How long {@code address} must wait before its next attempt; zero when it may try now. */
    Duration blockedFor(String address) {
        Bucket bucket = buckets.getIfPresent(key(address));
        return bucket == null ? Duration.ZERO : bucket.refilled(clock.instant(), maxFailures, retryEvery)
                .waitForOne(retryEvery);
    }

    /**
     * Counts a wrong or missing token from {@code address}: takes one attempt if one is left and
     * answers zero (the caller answers 401), else takes nothing and answers how long the address
     * must wait (429). Atomic per address, so 300 wrong tokens at once get exactly 5 answers of 401.
     */
    Duration failed(String address) {
        Instant now = clock.instant();
        Duration[] wait = {Duration.ZERO};
        buckets.asMap().compute(key(address), (k, old) -> {
            Bucket current = old == null ? new Bucket(maxFailures, now) : old.refilled(now, maxFailures, retryEvery);
            if (current.attempts() >= 1) {
                return new Bucket(current.attempts() - 1, now);
            }
            wait[0] = current.waitForOne(retryEvery);
            return current;
        });
        return wait[0];
    }

    /** The table's key for an address: IPv6 as its /64, anything else as it is (cut to 64 characters). */
    static String key(String address) {
        InetAddress parsed = ClientAddresses.parse(address);
        if (parsed instanceof Inet6Address) {
            return ClientAddresses.group(parsed, 64);
        }
        if (parsed != null) {
            return ClientAddresses.format(parsed);
        }
        return address.length() <= MAX_KEY_LENGTH ? address : address.substring(0, MAX_KEY_LENGTH);
    }

    /**
     * Attempts left and when that was so.
     *
     * @param attempts attempts left, fractional while one refills
     * @param at       when {@code attempts} was computed
     */
    private record Bucket(double attempts, Instant at) {

        Bucket refilled(Instant now, int capacity, Duration retryEvery) {
            long nanos = Duration.between(at, now).toNanos();
            if (nanos <= 0) {
                return this;
            }
            return new Bucket(Math.min(capacity, attempts + nanos / (double) retryEvery.toNanos()), now);
        }

        Duration waitForOne(Duration retryEvery) {
            if (attempts >= 1) {
                return Duration.ZERO;
            }
            return Duration.ofNanos((long) Math.ceil((1 - attempts) * retryEvery.toNanos()));
        }
    }

    @Override
    public String toString() {
        return "AdminThrottle[" + maxFailures + " failures, one more every " + retryEvery + "]";
    }

    /** For tests: addresses in the table now. */
    long size() {
        buckets.cleanUp();
        return buckets.estimatedSize();
    }
}
