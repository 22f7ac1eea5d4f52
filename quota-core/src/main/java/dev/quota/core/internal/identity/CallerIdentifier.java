package dev.quota.core.internal.identity;

import dev.quota.core.Caller;
import dev.quota.core.Credential;
import dev.quota.core.Customer;
import dev.quota.core.Identity;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.QuotaListener;
import dev.quota.core.RequestFacts;
import dev.quota.core.config.ApiKeys;
import dev.quota.core.internal.Hashes;
import dev.quota.core.internal.report.RejectionLog;
import dev.quota.core.spi.CustomerDirectory;
import java.net.InetAddress;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Who a request comes from, for {@link dev.quota.core.QuotaService#identify}: the customer its API key or
 * principal names, or the anonymous plan by client address or gateway user; whether the caller is
 * exempt ({@link Exemption}); and key guessing, counted per client address by the
 * {@link FailedKeyGuard}, which may answer {@link Caller.Kind#BLOCKED} instead.
 *
 * <p>Thread-safe: it reads the service's current config on every call and keeps no state of its own.
 */
public final class CallerIdentifier {

    private final Supplier<QuotaConfig> config;
    private final FailedKeyGuard guard;
    private final CustomerDirectory customers;
    private final QuotaListener listener;
    private final RejectionLog rejectionLog;

    /** Identifies by the current {@code config}, the customers of {@code customers}; tells {@code listener} of failed keys. */
    public CallerIdentifier(Supplier<QuotaConfig> config, FailedKeyGuard guard, CustomerDirectory customers,
                            QuotaListener listener, RejectionLog rejectionLog) {
        this.config = config;
        this.guard = guard;
        this.customers = customers;
        this.listener = listener;
        this.rejectionLog = rejectionLog;
    }

    /** As {@link dev.quota.core.QuotaService#identify}. */
    public Caller identify(RequestFacts facts) {
        QuotaConfig cfg = config.get();
        Identity identity = cfg.identity();
        InetAddress address = facts.peer() == null ? null : identity.clientAddress(facts.peer(), facts.forwardedFor());
        String group = address == null ? null : identity.group(address);
        Credential credential = facts.credential();
        if (credential instanceof Credential.ApiKey apiKey) {
            return byKey(cfg, apiKey.key(), address, group);
        }
        if (credential instanceof Credential.Principal principal) {
            return byPrincipal(cfg, principal.name(), address);
        }
        if (credential instanceof Credential.Ambiguous) {
            return failedKey(cfg, address, group, Caller.Kind.AMBIGUOUS_CREDENTIAL);
        }
        if (identity.missingKey() == Identity.MissingKey.REJECT) {
            return Caller.uncounted(Caller.Kind.MISSING_CREDENTIAL, address);
        }
        String user = identity.endUser(facts.peer(), facts.endUser());
        Customer customer;
        if (user != null) {
            customer = Customer.builder("user:" + user, identity.anonymousPlan()).kind(Customer.Kind.GATEWAY_USER)
                    .build();
        } else if (group != null) {
            customer = Customer.builder("ip:" + group, identity.anonymousPlan()).kind(Customer.Kind.ADDRESS).build();
        } else {
            throw new IllegalArgumentException("a request without a credential has no client address to be counted"
                    + " by; give QuotaFeature a ClientAddress that finds the peer address on this runtime");
        }
        return Caller.builder(Caller.Kind.ANONYMOUS).customer(customer).address(address)
                .exempt(Exemption.exempt(cfg, null, null, address)).build();
    }

    private Caller byKey(QuotaConfig cfg, String key, @Nullable InetAddress address, @Nullable String group) {
        boolean wellFormed = ApiKeys.wellFormed(key);
        String hash = wellFormed ? Hashes.sha256Hex(key) : null;
        if (group != null && cfg.enabled()) {
            QuotaDecision block = guard.peek(group);
            if (block.outcome() == QuotaDecision.Outcome.REJECTED
                    && !(cfg.identity().whileBlocked() == Identity.WhileBlocked.KNOWN_KEYS && hash != null
                    && guard.knownAt(group, hash))) {
                // a blocked address may not try a key it has not used before, valid ones included
                listener.onFailedKey(block);
                return Caller.blocked(address, block);
            }
        }
        Customer customer = hash == null ? null : customers.byApiKeyHash(hash);
        if (hash == null || customer == null) {
            return failedKey(cfg, address, group, Caller.Kind.UNKNOWN_CREDENTIAL);
        }
        boolean exempt = Exemption.exempt(cfg, customer, hash, address);
        if (group != null && cfg.enabled() && !exempt && !guard.knownAt(group, hash)) {
            // a key new to this address here: another instance may have blocked the address
            QuotaDecision block = guard.sharedBlock(cfg, group);
            if (block.outcome() == QuotaDecision.Outcome.REJECTED) {
                listener.onFailedKey(block);
                return Caller.blocked(address, block);
            }
        }
        return Caller.builder(Caller.Kind.IDENTIFIED).customer(customer).address(address).exempt(exempt).keyHash(hash)
                .build();
    }

    private Caller byPrincipal(QuotaConfig cfg, String name, @Nullable InetAddress address) {
        Customer customer = name.isEmpty() ? null : customers.byPrincipal(name);
        String plan = cfg.identity().principalPlan();
        if (customer == null && plan != null && !name.isEmpty()) {
            customer = Customer.builder("user:" + name, plan).kind(Customer.Kind.PRINCIPAL).build();
        }
        if (customer == null) {
            // authenticated by the runtime, so not a guess: not counted as a failed key
            return Caller.uncounted(Caller.Kind.UNKNOWN_CREDENTIAL, address);
        }
        return Caller.builder(Caller.Kind.IDENTIFIED).customer(customer).address(address)
                .exempt(Exemption.exempt(cfg, customer, null, address)).build();
    }

    /** Counts a failed lookup against the address; {@code kind} while it may still guess, BLOCKED after. */
    private Caller failedKey(QuotaConfig cfg, @Nullable InetAddress address, @Nullable String group, Caller.Kind kind) {
        if (group == null || !cfg.enabled() || (address != null && Exemption.exempt(cfg, null, null, address))) {
            return Caller.uncounted(kind, address);
        }
        QuotaDecision decision = guard.record(cfg, group);
        listener.onFailedKey(decision);
        if (decision.outcome() == QuotaDecision.Outcome.REJECTED
                || decision.outcome() == QuotaDecision.Outcome.SHADOW_REJECTED) {
            rejectionLog.failedKey(group, decision);
        }
        // UNAVAILABLE cannot turn a 401 into anything else: only a real rejection blocks
        return decision.outcome() == QuotaDecision.Outcome.REJECTED
                ? Caller.blocked(address, decision)
                : Caller.uncounted(kind, address);
    }
}
