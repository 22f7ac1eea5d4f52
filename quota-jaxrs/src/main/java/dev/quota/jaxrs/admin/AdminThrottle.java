package dev.quota.jaxrs.admin;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.quota.core.internal.Bandwidths;
import dev.quota.core.net.ClientAddresses;
import dev.quota.jaxrs.ClientAddress;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;

/**
 * Failed admin-token attempts per client address, in this JVM: a Bucket4j local bucket of
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
    private final TimeMeter time;
    private final Cache<String, Attempts> buckets;

    AdminThrottle(int maxFailures, Duration retryEvery, Clock clock, int maxAddresses) {
        this.maxFailures = maxFailures;
        this.retryEvery = retryEvery;
        this.time = Bandwidths.timeMeter(clock);
        this.buckets = Caffeine.newBuilder()
                .maximumSize(maxAddresses)
                // a bucket untouched this long is full again: forgetting it changes nothing
                .expireAfterWrite(retryEvery.multipliedBy(maxFailures))
                .ticker(time::currentTimeNanos)
                .executor(Runnable::run)
                .build();
    }

    /** How long {@code address} must wait before its next attempt; zero when it may try now. */
    Duration blockedFor(String address) {
        Attempts attempts = buckets.getIfPresent(key(address));
        return attempts == null ? Duration.ZERO
                : Duration.ofNanos(attempts.bucket().estimateAbilityToConsume(1).getNanosToWaitForRefill());
    }

    /**
     * Counts a wrong or missing token from {@code address}: takes one attempt if one is left and
     * answers zero (the caller answers 401), else takes nothing and answers how long the address
     * must wait (429). Atomic per address, so 300 wrong tokens at once get exactly 5 answers of 401.
     */
    Duration failed(String address) {
        Duration[] wait = {Duration.ZERO};
        buckets.asMap().compute(key(address), (k, old) -> {
            Bucket bucket = old == null ? newBucket() : old.bucket();
            ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(1);
            if (!probe.isConsumed()) {
                wait[0] = Duration.ofNanos(probe.getNanosToWaitForRefill());
            }
            // a new holder, so the map sees a write and restarts the entry's expiry
            return new Attempts(bucket);
        });
        return wait[0];
    }

    /** {@code maxFailures} attempts, one back every {@code retryEvery} (greedily: 4 s in, 0.4 of one). */
    private Bucket newBucket() {
        return Bucket.builder()
                .addLimit(limit -> limit.capacity(maxFailures).refillGreedy(1, retryEvery))
                .withCustomTimePrecision(time)
                .build();
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

    /** An address's bucket; a fresh holder on every attempt restarts its entry's time to expire. */
    private record Attempts(Bucket bucket) {
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
