package dev.quota.core;

import java.util.Objects;

/**
 * For tests outside the core package: a service whose leased batches are swept when the test says
 * (no background sweeper), so that a test's clock decides when a batch expires.
 */
public final class HandSweptLeases {

    private HandSweptLeases() {
    }

    /** {@code builder}, its batches swept only by {@link #sweep}. */
    public static QuotaServiceBuilder byHand(QuotaServiceBuilder builder) {
        return builder.sweepLeasesByHand();
    }

    /** Retires the batches past their deadline and sends what is queued to go back, now. */
    public static void sweep(QuotaService service) {
        Objects.requireNonNull(service.shares(), "leasing is on").sweep();
    }
}
