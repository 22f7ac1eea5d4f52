package dev.quota.core;

import dev.quota.core.internal.report.RejectionLog;
import dev.quota.core.spi.CustomerDirectory;
import dev.quota.core.spi.LeaseHolder;
import dev.quota.core.spi.QuotaStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** Settings for a {@link QuotaService}; from {@link QuotaService#builder()}. */
public final class QuotaServiceBuilder {

    @Nullable QuotaStore store;
    @Nullable QuotaStore fallback;
    @Nullable QuotaConfig config;
    @Nullable CustomerDirectory customers;
    Clock clock = Clock.systemUTC();
    String keyPrefix = "quota";
    IntSupplier liveInstances = () -> 1;
    IntSupplier instanceRank = () -> -1;
    Supplier<LeaseHolder> leaseHolder = () -> LeaseHolder.NONE;
    Duration unavailableRetryAfter = Duration.ofSeconds(1);
    final List<QuotaListener> listeners = new ArrayList<>();
    int rejectionLogRate = 20;
    /** For tests: a rejection log writing somewhere else than SLF4J. */
    @Nullable RejectionLog rejectionLog;
    byte @Nullable [] rejectionLogKey;
    @Nullable Consumer<String> storeFailureWarnings;
    TokenLeasing tokenLeasing = TokenLeasing.DEFAULT;
    /** Whether leased batches are swept by a background thread (tests sweep them by their clock). */
    boolean leaseSweeper = true;
    @Nullable Executor leaseReturns;

    QuotaServiceBuilder() {
    }

    /** The shared store (required). The service closes it on {@link QuotaService#close()}. */
    public QuotaServiceBuilder store(QuotaStore store) {
        this.store = Objects.requireNonNull(store, "store");
        return this;
    }

    /** The store used under {@link FailurePolicy#LOCAL}; default: a new in-JVM store. */
    public QuotaServiceBuilder fallback(QuotaStore fallback) {
        this.fallback = Objects.requireNonNull(fallback, "fallback");
        return this;
    }

    /** The initial config (required). A version of 0 is replaced by the current time in millis. */
    public QuotaServiceBuilder config(QuotaConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        return this;
    }

    /**
     * Where customers come from: API key hashes, principals and ids to customers. Default: the
     * active config's {@code customers} and {@code apiKeys}. An application that keeps customers in
     * its own database passes its directory here, wrapped in {@link CustomerDirectory#cached}.
     */
    public QuotaServiceBuilder customers(CustomerDirectory customers) {
        this.customers = Objects.requireNonNull(customers, "customers");
        return this;
    }

    /**
     * The clock for calendar windows, config versions, and the sampling of the rejection log and of
     * the "store unavailable" warnings; default {@link Clock#systemUTC()}.
     */
    public QuotaServiceBuilder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * The prefix of every bucket key; default {@code quota}.
     *
     * @throws IllegalArgumentException if not 1-32 of {@code [A-Za-z0-9_.-]}
     */
    public QuotaServiceBuilder keyPrefix(String keyPrefix) {
        new BucketLayout(keyPrefix, clock);
        this.keyPrefix = keyPrefix;
        return this;
    }

    /**
     * How many instances share the limits, for {@link FailurePolicy#LOCAL}: each instance's local
     * buckets hold its part of each limit, rounded down so the instances never hold more than the
     * limit together (capacity 10 over 4 instances: 2 each), and refill at their part of the rate.
     * Default: always 1. Asked only while the store is down; when it throws, the last count it gave
     * is used (a warning is logged once). With {@link #liveInstances(IntSupplier, IntSupplier)} the
     * remainder goes to the first instances by rank.
     */
    public QuotaServiceBuilder liveInstances(IntSupplier liveInstances) {
        this.liveInstances = Objects.requireNonNull(liveInstances, "liveInstances");
        this.instanceRank = () -> -1;
        return this;
    }

    /**
     * How many instances share the limits, and this instance's 0-based place among them, for
     * {@link FailurePolicy#LOCAL}: each instance gets its part of each limit rounded down, and the
     * remainder goes one token each to the lowest ranks. Capacity 10 over 16 instances: ranks 0-9
     * hold one token, ranks 10-15 none (they refuse with 503 during the outage), 10 in all. A rank
     * that throws or is out of range counts as unknown (the part rounded down only). For Redis:
     * {@code registry::liveInstances, registry::rank}; for a grid: {@code JCacheStore.members(cache),
     * JCacheStore.rank(cache)}.
     */
    public QuotaServiceBuilder liveInstances(IntSupplier liveInstances, IntSupplier rank) {
        this.liveInstances = Objects.requireNonNull(liveInstances, "liveInstances");
        this.instanceRank = Objects.requireNonNull(rank, "rank");
        return this;
    }

    /**
     * Who takes this instance's in-flight leases, and which instances are known dead, asked once per
     * decision that takes a lease from the shared store: a lease set records the tag in the slot it
     * takes, and frees, in the same store call, the slots of instances known dead, so a killed
     * instance's leases come back at the customer's next request once the registry knows it dead,
     * not at their lease timeout. For Redis: {@code registry::leaseHolder} (an
     * {@code InstanceRegistry}). Default: {@link LeaseHolder#NONE}, every lease held until given
     * back or its deadline; so is a supplier that throws. The in-JVM fallback never uses it.
     */
    public QuotaServiceBuilder leaseHolder(Supplier<LeaseHolder> leaseHolder) {
        this.leaseHolder = Objects.requireNonNull(leaseHolder, "leaseHolder");
        return this;
    }

    /**
     * The {@code Retry-After} of a decision rejected because the store is unavailable: under
     * {@link FailurePolicy#CLOSED} during an outage, and whatever the policy when one call failed
     * while the store serves others ({@link QuotaDecision.Fallback.Kind#SHED}); default 1 second.
     *
     * @throws IllegalArgumentException if negative or zero
     */
    public QuotaServiceBuilder unavailableRetryAfter(Duration retryAfter) {
        if (retryAfter.isNegative() || retryAfter.isZero()) {
            throw new IllegalArgumentException("unavailableRetryAfter must be positive but was " + retryAfter);
        }
        this.unavailableRetryAfter = retryAfter;
        return this;
    }

    /**
     * Where {@link QuotaService#releaseLater} gives in-flight leases back: the executor runs one job
     * at a time, which sends every return queued so far in one store call per batch. Default: one
     * daemon thread of the service ({@code quota-lease-returns}, started by the first return, ended
     * after 10 s idle, stopped by {@link QuotaService#close()}). {@code Runnable::run} gives each
     * lease back on the thread that ends the response, one store call per request: the return
     * then delays the response again, as {@link QuotaService#release} does.
     *
     * @throws NullPointerException if {@code executor} is null
     */
    public QuotaServiceBuilder leaseReturns(Executor executor) {
        this.leaseReturns = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /**
     * Adds a listener told of every decision, store failure, fallback change and reload (metrics:
     * {@code dev.quota.micrometer.MicrometerQuotaListener}). Call once per listener; they are told
     * in the order added. Default: none.
     */
    public QuotaServiceBuilder listener(QuotaListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /**
     * The most rejection lines per second written to the {@code dev.quota.rejections} logger (a
     * burst of as many, then that rate); lines beyond it are counted and summarised every 10
     * seconds. Default 20; 0 turns the rejection log off.
     *
     * @throws IllegalArgumentException if negative
     */
    public QuotaServiceBuilder rejectionLogRate(int linesPerSecond) {
        if (linesPerSecond < 0) {
            throw new IllegalArgumentException("rejectionLogRate must be >= 0 but was " + linesPerSecond);
        }
        this.rejectionLogRate = linesPerSecond;
        return this;
    }

    /**
     * The key of the rejection log's fingerprints ({@code customer=2bd806c97f0e}), an
     * HMAC-SHA256 key. Default: 32 random bytes made when the service is built, so a caller's
     * fingerprint stays the same while the process runs and differs in every other process.
     *
     * <p>Give every instance the same key (from a secret store, not the config file) when the
     * rejection lines of several instances, or of one instance across restarts, must be matched
     * up. The price: whoever holds the key can again test guesses (all 2^32 IPv4 addresses take
     * minutes), so keep it as secret as the logs are sensitive, and rotate it when it leaks. The
     * array is copied.
     *
     * @throws IllegalArgumentException if shorter than 32 bytes (the length is echoed, never the key)
     */
    public QuotaServiceBuilder rejectionLogKey(byte[] key) {
        if (key.length < RejectionLog.KEY_BYTES) {
            throw new IllegalArgumentException("rejectionLogKey must be at least " + RejectionLog.KEY_BYTES
                    + " bytes but was " + key.length + " bytes");
        }
        this.rejectionLogKey = key.clone();
        return this;
    }

    /**
     * Leased shares of hot buckets: whether and how this instance serves a bucket it decides on
     * often from a batch of its tokens, without a store call per decision; default
     * {@link TokenLeasing#DEFAULT} (on). {@link TokenLeasing#OFF} sends every decision to the store.
     * The config's {@code leasing} settings ({@link Leasing}) turn it off globally or per plan or rule.
     */
    public QuotaServiceBuilder tokenLeasing(TokenLeasing tokenLeasing) {
        this.tokenLeasing = Objects.requireNonNull(tokenLeasing, "tokenLeasing");
        return this;
    }

    /** Package-private: no background sweep of leased batches; the test sweeps by its clock. */
    QuotaServiceBuilder sweepLeasesByHand() {
        this.leaseSweeper = false;
        return this;
    }

    /** Package-private: a rejection log with its own sink, for tests. */
    QuotaServiceBuilder rejectionLog(RejectionLog rejectionLog) {
        this.rejectionLog = rejectionLog;
        return this;
    }

    /** Package-private: where the throttled "store unavailable" warnings go instead of the log, for tests. */
    QuotaServiceBuilder storeFailureWarnings(Consumer<String> warnings) {
        this.storeFailureWarnings = warnings;
        return this;
    }

    /**
     * The service.
     *
     * @throws NullPointerException if store or config is not set
     */
    public QuotaService build() {
        byte[] key = rejectionLogKey;
        RejectionLog custom = rejectionLog;
        if (custom != null || key == null) {
            return new QuotaService(this);
        }
        // the service takes a rejection log from here when one is set; for this build only
        rejectionLog = RejectionLog.toSlf4j(clock, rejectionLogRate, key);
        try {
            return new QuotaService(this);
        } finally {
            rejectionLog = null;
        }
    }
}
