package dev.quota.core;

import java.util.Objects;
import java.util.Set;

/**
 * Which limits of a config may be served from leased shares ({@link TokenLeasing}): the config's
 * part of the choice, from its {@code leasing} settings. Leasing never changes what is admitted in
 * total (the instances together never admit more than a limit), only how many decisions reach the
 * store; turning it off for a plan or rule sends every decision on it to the store.
 *
 * <pre>
 * leasing: off            # global: nothing is leased (default on)
 * plans:
 *   free:
 *     leasing: off        # this plan's buckets are never leased
 * rules:
 *   transfers:
 *     leasing: off        # this rule's per-customer and shared buckets are never leased
 * </pre>
 *
 * @param enabled   the global switch; default true
 * @param plansOff  names of plans never leased
 * @param rulesOff  names of rules never leased
 */
public record Leasing(boolean enabled, Set<String> plansOff, Set<String> rulesOff) {

    /** Every plan and rule may be leased: the default. */
    public static final Leasing ON = new Leasing(true, Set.of(), Set.of());

    /** Nothing is leased. */
    public static final Leasing OFF = new Leasing(false, Set.of(), Set.of());

    /** Copies the sets. */
    public Leasing {
        plansOff = Set.copyOf(Objects.requireNonNull(plansOff, "plansOff"));
        rulesOff = Set.copyOf(Objects.requireNonNull(rulesOff, "rulesOff"));
    }

    /** Whether the plan named {@code plan} may be leased. */
    public boolean leasesPlan(String plan) {
        return enabled && !plansOff.contains(plan);
    }

    /** Whether the rule named {@code rule} may be leased. */
    public boolean leasesRule(String rule) {
        return enabled && !rulesOff.contains(rule);
    }

    /**
     * Whether a bucket of a plan ({@code plan} true) or rule may be leased, from the policy name of
     * its first limit ({@code <owner>-<limit>}) and that limit's name: without a string made per decision.
     */
    boolean leases(boolean plan, String policy, String limit) {
        if (!enabled) {
            return false;
        }
        Set<String> off = plan ? plansOff : rulesOff;
        if (off.isEmpty()) {
            return true;
        }
        int owner = policy.length() - limit.length() - 1;
        for (String name : off) {
            if (name.length() == owner && policy.startsWith(name)) {
                return false;
            }
        }
        return true;
    }
}
