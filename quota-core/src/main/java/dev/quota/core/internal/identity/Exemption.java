package dev.quota.core.internal.identity;

import dev.quota.core.Caller;
import dev.quota.core.Customer;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import java.net.InetAddress;
import org.jspecify.annotations.Nullable;

/**
 * Whether a caller is exempt from every limit: the one place that answers it. Exempt are all
 * callers while the config is disabled ({@code enabled: false}), and callers the allow list
 * ({@code allow:} customer ids, API key hashes, client address ranges) names. An exempt caller's
 * decision is {@link QuotaDecision.Outcome#BYPASSED}, without a store call, and its unknown keys
 * are not counted as guesses.
 */
public final class Exemption {

    private Exemption() {
    }

    /**
     * Whether the allow list names this caller: its account's id, its API key's SHA-256 or its
     * client address (any of them may be null: not known).
     */
    static boolean exempt(QuotaConfig cfg, @Nullable Customer customer, @Nullable String keyHash,
                          @Nullable InetAddress address) {
        String id = customer != null && customer.kind() == Customer.Kind.ACCOUNT ? customer.id() : null;
        return cfg.allow().matches(id, keyHash, address);
    }

    /**
     * Whether {@code caller}'s request is let through uncounted: the config is disabled, the caller
     * was found exempt when identified, or (for a caller built from a customer alone) its account is
     * on the allow list.
     */
    public static boolean exempt(QuotaConfig cfg, Caller caller) {
        return !cfg.enabled() || caller.exempt() || exempt(cfg, caller.customer(), null, null);
    }

    /** {@link #exempt(QuotaConfig, Caller)} of a caller for {@code customer}, found exempt or not when identified. */
    public static boolean exempt(QuotaConfig cfg, Customer customer, boolean exemptCaller) {
        return !cfg.enabled() || exemptCaller || exempt(cfg, customer, null, null);
    }
}
