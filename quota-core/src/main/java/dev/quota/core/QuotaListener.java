package dev.quota.core;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Told what the limiter does, for metrics and audit ({@code quota-micrometer} implements it).
 * Register with {@link QuotaServiceBuilder#listener}.
 *
 * <p>Every method has a no-op default, so an implementation overrides only what it needs. Calls
 * come on the thread that made the decision, in the request path: keep them fast and non-blocking.
 * An exception thrown by a listener is logged and otherwise ignored; it never changes a decision.
 */
public interface QuotaListener {

    /**
     * A request decision ({@link QuotaService#decide}) or amount decision
     * ({@link QuotaService#consumeAmount}) was made.
     *
     * @param customer the customer decided for; its id may be personal data, keep it out of metric tags
     * @param limits   the name of the limits decided beside the plan: the endpoint rule's, the amount
     *                 limits' for an amount decision ({@code transfer-amount}), or null for the plan alone
     * @param decision the decision, any outcome
     * @param elapsed  how long the decision took, store round trips included
     */
    default void onDecision(Customer customer, @Nullable String limits, QuotaDecision decision, Duration elapsed) {
    }

    /**
     * A client address's failed API-key lookup was counted (in {@link QuotaService#identify}, for a credential that matched no customer):
     * {@link QuotaDecision.Outcome#ALLOWED} means "answer 401", {@link QuotaDecision.Outcome#REJECTED}
     * means the address is guessing keys and gets 429.
     */
    default void onFailedKey(QuotaDecision decision) {
    }

    /**
     * The store failed during a decision or while giving tokens back; the failure policy decided
     * what the caller saw. Called once per failed store call.
     */
    default void onStoreFailure(RuntimeException e) {
    }

    /**
     * The in-JVM fallback of {@link FailurePolicy#LOCAL} took over ({@code true}, on the first
     * decision it made) or handed back to the store ({@code false}, on the first decision the store
     * answered again).
     */
    default void onFallback(boolean active) {
    }

    /**
     * A decision's cost was settled ({@link QuotaService#settle}): its estimate changed to the actual
     * cost, taken after the fact ({@link Settlement.Outcome#CHARGED}, possibly into debt) or given
     * back, or a settle that changed nothing and says why.
     */
    default void onSettle(Settlement settlement) {
    }

    /**
     * The in-flight leases a decision held ({@link Concurrency}) were given back
     * ({@link QuotaService#release}): told once per decision that held any, by the call that gave
     * them back, even when the store failed to take them (they then come back at their lease
     * timeout). With {@link #onDecision} of a decision whose receipt {@link Receipt#holdsLeases()
     * holds leases}, it tells how many leases this instance's requests hold now.
     *
     * @param decision the decision whose leases were given back, as {@link #onDecision} was told it
     */
    default void onRelease(QuotaDecision decision) {
    }

    /**
     * A new config was offered to {@link QuotaService#reload}: applied, or rejected (invalid file,
     * version not higher) with the previous config staying active.
     *
     * @param version the version active afterwards
     */
    default void onReload(boolean applied, long version) {
    }

    /**
     * Leased tokens of a hot bucket ({@link TokenLeasing}) were taken, given back, expired or
     * lost, whatever limit they are of. The service calls
     * {@link #onLeasedTokens(TokenLeasing.Event, String, long)}, whose default calls this one: an
     * implementation overrides either.
     *
     * @param tokens how many tokens the event concerns
     */
    default void onLeasedTokens(TokenLeasing.Event event, long tokens) {
    }

    /**
     * Leased tokens of the hot buckets of one limit ({@link TokenLeasing}) were taken, given back,
     * expired or lost. Told off the request path for returns, expiries and losses (once per limit
     * and sweep: 3 buckets of {@code free-burst} returning 5 tokens each are one call of 15); on
     * the deciding thread for a batch taken. The default calls
     * {@link #onLeasedTokens(TokenLeasing.Event, long)}.
     *
     * @param policy the policy name of the bucket's first limit, as {@code RateLimit-Policy} names it
     *               ({@code <plan>-<limit>}, {@code <rule>-<limit>}): a config name, never a
     *               customer's, so a metric tag of it has as many values as the config has limits
     * @param tokens how many tokens the event concerns
     */
    default void onLeasedTokens(TokenLeasing.Event event, String policy, long tokens) {
        onLeasedTokens(event, tokens);
    }
}
