package dev.quota.jaxrs.admin;

import dev.quota.core.QuotaService;
import dev.quota.jaxrs.ClientAddress;
import dev.quota.jaxrs.QuotaFeature;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/** Settings of a {@link QuotaAdminResource}; from {@link QuotaAdminResource#builder}. */
public final class QuotaAdminResourceBuilder {
    final QuotaService service;
    final byte[] tokenDigest;
    ClientAddress clientAddress = ClientAddress.peer();
    int maxFailures = QuotaAdminResource.DEFAULT_MAX_FAILURES;
    Duration retryEvery = QuotaAdminResource.DEFAULT_RETRY_EVERY;
    Clock clock = Clock.systemUTC();

    QuotaAdminResourceBuilder(QuotaService service, String token) {
        this.service = Objects.requireNonNull(service, "service");
        AdminTokens.requireStrong(Objects.requireNonNull(token, "token"));
        this.tokenDigest = AdminGuard.sha256(token);
    }

    /**
     * Where a call's client address comes from, for throttling wrong tokens and for the audit
     * lines; default {@link ClientAddress#peer()}, the connection's peer, as the {@link QuotaFeature}
     * registered in the same application finds it. Give the same {@link ClientAddress} as the quota
     * feature's if it has its own (the admin API is meant for an internal port, so
     * {@code X-Forwarded-For} is not read). No address or a failure counts the call as
     * {@code unknown}, and all such calls share one allowance.
     *
     * @throws NullPointerException if {@code clientAddress} is null
     */
    public QuotaAdminResourceBuilder clientAddress(ClientAddress clientAddress) {
        this.clientAddress = Objects.requireNonNull(clientAddress, "clientAddress");
        return this;
    }

    /**
     * Wrong or missing tokens one address may send before it is answered 429; default 5.
     *
     * @throws IllegalArgumentException if below 1
     */
    public QuotaAdminResourceBuilder maxFailures(int maxFailures) {
        if (maxFailures < 1) {
            throw new IllegalArgumentException("maxFailures must be >= 1 but was " + maxFailures);
        }
        this.maxFailures = maxFailures;
        return this;
    }

    /**
     * How often a throttled address gets one more attempt; default 10 seconds. With 5 failures
     * and 10 s, a guesser gets 5 tries, then 6 a minute.
     *
     * @throws IllegalArgumentException if not positive
     */
    public QuotaAdminResourceBuilder retryEvery(Duration retryEvery) {
        if (retryEvery.isNegative() || retryEvery.isZero()) {
            throw new IllegalArgumentException("retryEvery must be positive but was " + retryEvery);
        }
        this.retryEvery = retryEvery;
        return this;
    }

    /**
     * The clock of the throttle and of the audit sampling; default {@link Clock#systemUTC()}.
     *
     * @throws NullPointerException if {@code clock} is null
     */
    public QuotaAdminResourceBuilder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /** The resource, ready to register. */
    public QuotaAdminResource build() {
        return new QuotaAdminResource(this);
    }
}
