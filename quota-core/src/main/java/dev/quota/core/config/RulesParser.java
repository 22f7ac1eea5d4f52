package dev.quota.core.config;

import dev.quota.core.Concurrency;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Limit;
import dev.quota.core.Mode;
import dev.quota.core.Plan;
import dev.quota.core.RouteMatch;
import dev.quota.core.Rule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** Reads the {@code rules} section: endpoint patterns, cost and the rule's own limits. */
final class RulesParser {

    private final ConfigProblems problems;
    private final Map<String, Plan> plans;
    /** Entries seen so far ({@code POST /a/{}}), to the path of their first use. */
    private final Map<String, String> seenPatterns = new HashMap<>();

    /** Rules marked {@code leasing: off}, filled as they are read. */
    private final Set<String> unleased;

    private RulesParser(Map<String, Plan> plans, Set<String> unleased, ConfigProblems problems) {
        this.plans = plans;
        this.unleased = unleased;
        this.problems = problems;
    }

    /**
     * The valid rules by name; invalid ones are left out with their errors recorded. The names of
     * rules marked {@code leasing: off} are added to {@code unleased}.
     */
    static Map<String, Rule> parse(ConfigMap section, Map<String, Plan> plans, Set<String> unleased,
                                   ConfigProblems problems) {
        var parser = new RulesParser(plans, unleased, problems);
        Map<String, Rule> rules = new LinkedHashMap<>();
        for (String name : section.keys()) {
            Rule rule = parser.rule(name, section);
            if (rule != null) {
                rules.put(name, rule);
            }
        }
        return rules;
    }

    private @Nullable Rule rule(String name, ConfigMap section) {
        String path = section.path(name);
        if (!Limit.isValidName(name)) {
            problems.error(path, "rule name must match " + LimitsParser.NAME_RULE);
            return null;
        }
        ConfigMap rule = ConfigMap.of(section.raw(name), path, problems);
        if (rule == null) {
            return null;
        }
        int errorsBefore = problems.errorCount();
        rule.allowOnly("match", "cost", "limits", "shared", "onStoreFailure", "mode", "concurrency", "leaseTimeout",
                "leasing");
        List<RouteMatch> matches = matches(rule);
        Long cost = rule.has("cost") ? rule.integer("cost", 1) : Long.valueOf(1);
        if (cost != null) {
            ConfigChecks.ruleCost(cost, rule.path("cost"), plans, problems);
        }
        List<Limit> perCustomer = limits(rule, "limits");
        List<Limit> shared = limits(rule, "shared");
        String policy = rule.has("onStoreFailure") ? rule.choice("onStoreFailure", "open", "closed", "local") : null;
        Mode mode = rule.has("mode") ? QuotaConfigParser.mode(rule) : null;
        Concurrency concurrency = ConcurrencyParser.parse(rule, problems);
        Boolean leasing = LeasingParser.parse(rule, problems);
        LeasingParser.check(leasing, rule, mode, perCustomer == null || shared == null
                || !perCustomer.isEmpty() || !shared.isEmpty(), problems);
        if (Boolean.FALSE.equals(leasing)) {
            unleased.add(name);
        }
        if (problems.errorCount() > errorsBefore || cost == null || perCustomer == null || shared == null) {
            return null;
        }
        try {
            return Rule.builder(name).matches(matches).cost(cost).perCustomer(perCustomer).shared(shared)
                    .onStoreFailure(policy == null ? null : FailurePolicy.valueOf(policy.toUpperCase(Locale.ROOT)))
                    .mode(mode).concurrency(concurrency).build();
        } catch (IllegalArgumentException e) {
            problems.error(path, String.valueOf(e.getMessage()));
            return null;
        }
    }

    private @Nullable List<Limit> limits(ConfigMap rule, String key) {
        if (!rule.has(key)) {
            return List.of();
        }
        List<Limit> limits = LimitsParser.parse(rule.raw(key), rule.path(key), false, problems);
        if (limits != null) {
            ConfigChecks.capacityWarnings(limits, rule.path(key), problems);
        }
        return limits;
    }

    private List<RouteMatch> matches(ConfigMap rule) {
        List<Object> items = rule.list("match");
        if (items == null) {
            return List.of();
        }
        List<RouteMatch> matches = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String path = ConfigProblems.index(rule.path("match"), i);
            String pattern = ConfigMap.string(items.get(i), path, problems);
            if (pattern == null) {
                continue;
            }
            RouteMatch match;
            try {
                match = RouteMatch.parse(pattern);
            } catch (IllegalArgumentException e) {
                problems.error(path, String.valueOf(e.getMessage()));
                continue;
            }
            String first = seenPatterns.putIfAbsent(match.toString(), path);
            if (first != null) {
                problems.error(path, "duplicate pattern " + ConfigProblems.quote(pattern) + " (already at " + first + ")");
            } else {
                matches.add(match);
            }
        }
        return matches;
    }
}
