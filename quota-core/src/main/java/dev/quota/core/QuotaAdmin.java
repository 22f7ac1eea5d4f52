package dev.quota.core;

import dev.quota.core.resilience.CircuitBreakerStore;
import dev.quota.core.spi.ConsumeResult;
import dev.quota.core.spi.CustomerDirectory;
import dev.quota.core.spi.QuotaStore;
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
    private final TopCustomersListener top;

    QuotaAdmin(Supplier<QuotaConfig> config, BucketLayout layout, QuotaStore store, CustomerDirectory customers,
               DecisionRunner runner, TopCustomersListener top) {
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
     * request starts with full buckets.
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
        }
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
