package dev.quota.core;

import dev.quota.core.internal.lease.LeasedShares;
import dev.quota.core.internal.top.TopCustomerCounts;
import dev.quota.core.resilience.CircuitBreakerStore;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.CustomerDirectory;
import dev.quota.core.spi.QuotaStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * An operator's reads and resets, beside the decisions: a customer's standing in every limit, and
 * emptying nothing but refilling everything. From {@link QuotaService#admin()}.
 */
public final class QuotaAdmin {

    private final Supplier<QuotaConfig> config;
    private final BucketLayout layout;
    private final QuotaStore store;
    private final CustomerDirectory customers;
    private final DecisionRunner runner;
    private final TopCustomerCounts top;

    QuotaAdmin(Supplier<QuotaConfig> config, BucketLayout layout, QuotaStore store, CustomerDirectory customers,
               DecisionRunner runner, TopCustomerCounts top) {
        this.config = config;
        this.layout = layout;
        this.store = store;
        this.customers = customers;
        this.runner = runner;
        this.top = top;
    }

    /**
     * Who is being limited: the customers this instance refused most often, and those that spent
     * the most plan tokens, over the current minute and the {@value TopCustomers#WINDOW_MINUTES}
     * before it ({@link TopCustomers}). In memory, counted from this instance's own decisions;
     * asks nothing of the store.
     */
    public TopCustomers topCustomers() {
        return top.top();
    }

    /**
     * How often this instance refused {@code customer} over the window of {@link #topCustomers()}:
     * a count never below the truth, with how much it may exceed it (0 when exact: always while
     * this instance refuses fewer than {@value TopCustomers#COUNTERS} customers a minute). For a
     * customer's own usage view. Asks nothing of the store.
     */
    public TopCustomers.Entry recentRefusals(Customer customer) {
        return top.refusalsOf(customer);
    }

    /**
     * The shared store's health as this instance sees it: its breaker's state, whether an outage is
     * established, and the decisions made instead of it since start. Asks nothing of the store.
     */
    public StoreHealth store() {
        if (store instanceof CircuitBreakerStore breaker) {
            return new StoreHealth(store.describe(), breaker.state(), breaker.outage(), runner.fallbackDecisions());
        }
        return new StoreHealth(store.describe(), null, false, runner.fallbackDecisions());
    }

    /** The customer with this id, from the customer directory (the config's, by default), or null. */
    public @Nullable Customer customer(String id) {
        return customers.byId(id);
    }

    /**
     * The customer's standing in its plan limits and in the per-customer limits of every rule (by
     * rule name), without taking anything.
     *
     * @throws IllegalArgumentException if the customer's plan is not configured
     * @throws QuotaStoreException      if the store cannot answer
     */
    public List<LimitStatus> standing(Customer customer) {
        QuotaConfig cfg = config.get();
        return peek(layout.customerBuckets(cfg, customer, QuotaService.planOf(cfg, customer)));
    }

    /**
     * The customer's standing in the amount limits {@code amounts} for {@code qualifier} (a
     * currency), without taking anything: how much may still move today.
     *
     * @throws IllegalArgumentException if {@code amounts} is unknown or the qualifier is malformed
     * @throws QuotaStoreException      if the store cannot answer
     */
    public List<LimitStatus> amountStanding(Customer customer, String amounts, String qualifier) {
        QuotaConfig cfg = config.get();
        new Amount(amounts, qualifier, 1); // checks the qualifier
        return peek(layout.amountBuckets(cfg, customer, QuotaService.amountLimits(cfg, amounts), qualifier));
    }

    /**
     * The storage keys of the customer's plan and rule buckets (current calendar windows included),
     * for an operator looking at the store itself: {@code quota:{c.3q2+7w...}:p}.
     *
     * @throws IllegalArgumentException if the customer's plan is not configured
     */
    public List<String> bucketKeys(Customer customer) {
        QuotaConfig cfg = config.get();
        return layout.customerBuckets(cfg, customer, QuotaService.planOf(cfg, customer)).stream()
                .map(slot -> slot.key().value()).toList();
    }

    /**
     * Deletes the customer's plan and rule buckets (current calendar windows included): the next
     * request starts with full buckets. In-flight leases are not buckets of requests made but of
     * requests running, and stay held: {@link #releaseLeases} frees them.
     *
     * @throws IllegalArgumentException if the customer's plan is not configured
     * @throws QuotaStoreException      if the store cannot answer
     */
    public void reset(Customer customer) {
        QuotaConfig cfg = config.get();
        for (Draw slot : layout.customerBuckets(cfg, customer, QuotaService.planOf(cfg, customer))) {
            DecisionRunner.call(() -> {
                store.reset(slot.key());
                return null;
            });
            LeasedShares shares = runner.shares();
            if (shares != null) {
                shares.forget(slot.key()); // the bucket starts full: this instance's batch of it is not given back
            }
        }
    }

    /**
     * The customer's in-flight limits ({@link Concurrency}) as the store holds them now: the plan's,
     * then each rule's by rule name; none when no plan or rule of the config limits in-flight
     * requests. One store read per limit, nothing taken.
     *
     * @throws IllegalArgumentException if the customer's plan is not configured
     * @throws QuotaStoreException      if the store cannot answer
     */
    public List<InFlightStanding> inFlight(Customer customer) {
        QuotaConfig cfg = config.get();
        Instant now = layout.clock().instant();
        List<InFlightStanding> out = new ArrayList<>();
        for (Draw leases : layout.customerLeases(cfg, customer, QuotaService.planOf(cfg, customer))) {
            ConsumeResult result = DecisionRunner.call(() -> store.peek(leases.key(), leases.spec()));
            out.add(inFlight(leases, result, now));
        }
        return List.copyOf(out);
    }

    /**
     * Frees every in-flight lease of the customer, on every instance: its next requests are
     * admitted up to each in-flight limit again, whatever is still running. Requests that still
     * run keep running but no longer count, so until they end more than the limit may run at once:
     * for leases whose holder is gone (an instance killed before it gave them back) that an
     * operator does not want to wait out the lease timeout for. A running request that ends later
     * gives back nothing (its lease is no longer held), so it frees no one else's slot.
     * {@link #reset} leaves leases alone.
     *
     * @return the in-flight limits as they stood just before (what was freed)
     * @throws IllegalArgumentException if the customer's plan is not configured
     * @throws QuotaStoreException      if the store cannot answer
     */
    public List<InFlightStanding> releaseLeases(Customer customer) {
        List<InFlightStanding> before = inFlight(customer);
        QuotaConfig cfg = config.get();
        for (Draw leases : layout.customerLeases(cfg, customer, QuotaService.planOf(cfg, customer))) {
            DecisionRunner.call(() -> {
                store.reset(leases.key());
                return null;
            });
        }
        return before;
    }

    private static InFlightStanding inFlight(Draw leases, ConsumeResult result, Instant now) {
        Limit limit = leases.declared().get(0);
        long held = Math.max(0, limit.capacity() - result.remaining()[0]);
        Duration timeout = ((Refill.Interval) limit.refill()).period();
        // a lease set's peek waits for the oldest held lease (BucketMath.peek)
        Instant oldest = held == 0 ? null : now.plusNanos(result.nanosToWait());
        return new InFlightStanding(leases.policies().get(0), held, limit.capacity(), timeout, oldest);
    }

    private List<LimitStatus> peek(List<Draw> slots) {
        Instant now = layout.clock().instant();
        List<LimitStatus> out = new ArrayList<>();
        for (Draw slot : slots) {
            ConsumeResult result = DecisionRunner.call(() -> store.peek(slot.key(), slot.spec()));
            slot.statuses(result, now, out);
        }
        return List.copyOf(out);
    }
}
