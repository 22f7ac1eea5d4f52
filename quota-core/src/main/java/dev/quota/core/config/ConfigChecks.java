package dev.quota.core.config;

import dev.quota.core.Limit;
import dev.quota.core.Plan;
import dev.quota.core.Refill;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** Checks that span several limits or sections: limits that shadow each other, rule costs. */
final class ConfigChecks {

    private ConfigChecks() {
    }

    /**
     * Warns about each limit whose capacity is smaller than that of a limit with a shorter window:
     * with {@code burst} 20 (10/s) and {@code daily} 10, the burst of 20 can never be used. Windows
     * are compared by how long the limit takes to refill from empty (greedy and interval:
     * period * capacity / tokens; calendar: an hour, 24 hours, 7 days or 31 days).
     */
    static void capacityWarnings(List<Limit> limits, String listPath, ConfigProblems problems) {
        for (int i = 0; i < limits.size(); i++) {
            Limit longer = limits.get(i);
            double window = windowSeconds(longer);
            Limit shadowed = null;
            for (Limit shorter : limits) {
                if (windowSeconds(shorter) < window && shorter.capacity() > longer.capacity()
                        && (shadowed == null || shorter.capacity() > shadowed.capacity())) {
                    shadowed = shorter;
                }
            }
            if (shadowed != null) {
                problems.warn(ConfigProblems.index(listPath, i), longer.name() + " capacity " + longer.capacity()
                        + " is smaller than " + shadowed.name() + " capacity " + shadowed.capacity()
                        + "; the " + shadowed.name() + " can never be used in full");
            }
        }
    }

    /**
     * A rule's cost is taken from every limit of the caller's plan, so a cost above the largest
     * capacity of a plan means the request can never pass on that plan: an error. A cost above
     * only some capacities of a plan is a warning: only customers with a multiplier can pass.
     */
    static void ruleCost(long cost, String costPath, Map<String, Plan> plans, ConfigProblems problems) {
        plans.values().stream().sorted(Comparator.comparing(Plan::name)).forEach(plan -> {
            Limit largest = plan.limits().get(0);
            Limit smallest = largest;
            for (Limit limit : plan.limits()) {
                largest = limit.capacity() > largest.capacity() ? limit : largest;
                smallest = limit.capacity() < smallest.capacity() ? limit : smallest;
            }
            if (cost > largest.capacity()) {
                problems.error(costPath, cost + " exceeds every limit of plan \"" + plan.name()
                        + "\" (largest capacity " + largest.capacity() + ")");
            } else if (cost > smallest.capacity()) {
                problems.warn(costPath, cost + " exceeds limit \"" + smallest.name() + "\" of plan \"" + plan.name()
                        + "\" (capacity " + smallest.capacity() + "); on that plan only customers with a multiplier can pass");
            }
        });
    }

    /** How long the limit takes to refill from empty, in seconds. */
    static double windowSeconds(Limit limit) {
        Refill refill = limit.refill();
        if (refill instanceof Refill.Greedy greedy) {
            return seconds(greedy.period()) * limit.capacity() / greedy.tokens();
        }
        if (refill instanceof Refill.Interval interval) {
            return seconds(interval.period()) * limit.capacity() / interval.tokens();
        }
        ChronoUnit unit = ((Refill.Calendar) refill).unit();
        return switch (unit) {
            case HOURS -> 3_600;
            case DAYS -> 86_400;
            case WEEKS -> 7 * 86_400;
            default -> 31 * 86_400;
        };
    }

    private static double seconds(Duration duration) {
        return duration.getSeconds() + duration.getNano() / 1e9;
    }
}
