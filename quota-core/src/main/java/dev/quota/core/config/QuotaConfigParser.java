package dev.quota.core.config;

import dev.quota.core.AllowList;
import dev.quota.core.AmountLimits;
import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.FailurePolicy;
import dev.quota.core.Identity;
import dev.quota.core.Leasing;
import dev.quota.core.Limit;
import dev.quota.core.Mode;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.Rule;
import dev.quota.core.Streams;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Turns the plain YAML tree into a {@link QuotaConfig}, recording every error it finds. */
final class QuotaConfigParser {

    static final Pattern SHA256 = Pattern.compile("[0-9a-fA-F]{64}");
    static final int MAX_CUSTOMER_ID = 128;

    private final ConfigProblems problems;
    /** Every well-named plan in the file, valid or not, so a reference to it is not an error too. */
    private final Set<String> planNames = new TreeSet<>();
    private final Set<String> customerIds = new HashSet<>();
    private final Map<String, Plan> plans = new LinkedHashMap<>();
    private boolean plansRead;
    /** Plans and rules marked {@code leasing: off}. */
    private final Set<String> unleasedPlans = new LinkedHashSet<>();
    private final Set<String> unleasedRules = new LinkedHashSet<>();

    private QuotaConfigParser(ConfigProblems problems) {
        this.problems = problems;
    }

    /** The config, or null when any error was recorded. */
    static @Nullable QuotaConfig parse(Object root, ConfigProblems problems) {
        return new QuotaConfigParser(problems).parse(root);
    }

    private @Nullable QuotaConfig parse(Object root) {
        if (!(root instanceof Map<?, ?> map)) {
            problems.error("", "the config must be a map of sections (plans, rules, customers, ...) but was "
                    + ConfigProblems.describe(root));
            return null;
        }
        ConfigMap top = ConfigMap.root(map, problems);
        top.allowOnly("version", "enabled", "mode", "identity", "plans", "rules", "amounts", "customers", "apiKeys",
                "allow", "streams", "leasing");
        Long version = top.integer("version", 1);
        Boolean enabled = top.has("enabled") ? top.bool("enabled") : Boolean.TRUE;
        Mode mode = top.has("mode") ? mode(top) : Mode.ENFORCE;
        Boolean leasing = LeasingParser.parse(top, problems);
        LeasingParser.check(leasing, top, mode, true, problems);
        if (top.require("plans")) {
            plans(top.map("plans"));
        }
        Identity identity = IdentityParser.parse(top.has("identity") ? top.map("identity") : null, planNames, plansRead,
                problems);
        Map<String, Rule> rules = top.has("rules") ? rulesSection(top.map("rules")) : Map.of();
        Set<String> plansOff = new LinkedHashSet<>();
        for (Plan plan : plans.values()) {
            if (unleasedPlans.contains(plan.name())) {
                plansOff.add(plan.name());
            }
        }
        Map<String, AmountLimits> amounts = amounts(top.has("amounts") ? top.map("amounts") : null);
        Map<String, Customer> customers = customers(top.has("customers") ? top.map("customers") : null);
        Map<String, String> apiKeys = apiKeys(top);
        ConfigMap allowSection = top.has("allow") ? top.map("allow") : null;
        AllowList allow = allowSection == null ? AllowList.NONE : AllowListParser.parse(allowSection, apiKeys, problems);
        Streams streams = streams(top.has("streams") ? top.map("streams") : null);
        if (problems.hasErrors() || identity == null || enabled == null || mode == null || allow == null
                || streams == null) {
            return null;
        }
        if (!enabled) {
            problems.warn("enabled", "false: nothing is limited, every request is let through");
        }
        try {
            QuotaConfig.Builder config = QuotaConfig.builder().version(version == null ? 0 : version)
                    .identity(identity).enabled(enabled).mode(mode).allow(allow).streams(streams)
                    .leasing(new Leasing(!Boolean.FALSE.equals(leasing), plansOff, unleasedRules));
            plans.values().forEach(config::plan);
            rules.values().forEach(config::rule);
            amounts.values().forEach(config::amounts);
            customers.values().forEach(config::customer);
            apiKeys.forEach(config::apiKey);
            problems.warnings().forEach(config::warning);
            return config.build();
        } catch (IllegalArgumentException e) {
            problems.error("", String.valueOf(e.getMessage()));
            return null;
        }
    }

    /** Section {@code streams}: {@code maxBatch} (>= 1) and {@code debtCap} (>= 0), each optional; null when either is wrong. */
    private @Nullable Streams streams(@Nullable ConfigMap section) {
        if (section == null) {
            return Streams.DEFAULT;
        }
        section.allowOnly("maxBatch", "debtCap");
        boolean wrong = false;
        long maxBatch = Streams.DEFAULT.maxBatch();
        if (section.has("maxBatch")) {
            Long value = section.integer("maxBatch", 1);
            wrong = value == null;
            maxBatch = value == null ? maxBatch : value;
        }
        long debtCap = Streams.DEFAULT.debtCap();
        if (section.has("debtCap")) {
            Long value = section.integer("debtCap", 0);
            wrong |= value == null;
            debtCap = value == null ? debtCap : value;
        }
        return wrong ? null : new Streams(maxBatch, debtCap);
    }

    private void plans(@Nullable ConfigMap section) {
        if (section == null) {
            return;
        }
        plansRead = true;
        if (section.keys().isEmpty()) {
            problems.error(section.path(), "must have at least one plan");
        }
        for (String name : section.keys()) {
            String path = section.path(name);
            if (!Limit.isValidName(name)) {
                problems.error(path, "plan name must match " + LimitsParser.NAME_RULE);
                continue;
            }
            planNames.add(name);
            ConfigMap plan = ConfigMap.of(section.raw(name), path, problems);
            if (plan == null) {
                continue;
            }
            int errorsBefore = problems.errorCount();
            plan.allowOnly("onStoreFailure", "limits", "mode", "concurrency", "leaseTimeout", "leasing");
            FailurePolicy policy = policy(plan, FailurePolicy.LOCAL);
            Mode mode = plan.has("mode") ? mode(plan) : null;
            Boolean leasing = LeasingParser.parse(plan, problems);
            LeasingParser.check(leasing, plan, mode, true, problems);
            if (Boolean.FALSE.equals(leasing)) {
                unleasedPlans.add(name);
            }
            Concurrency concurrency = ConcurrencyParser.parse(plan, problems);
            List<Limit> limits = plan.require("limits")
                    ? LimitsParser.parse(plan.raw("limits"), plan.path("limits"), true, problems) : null;
            if (limits != null) {
                ConfigChecks.capacityWarnings(limits, plan.path("limits"), problems);
            }
            if (problems.errorCount() == errorsBefore && limits != null && policy != null) {
                construct(path, () -> plans.put(name, Plan.builder(name).limits(limits).onStoreFailure(policy)
                        .mode(mode).concurrency(concurrency).build()));
            }
        }
    }

    private Map<String, Rule> rulesSection(@Nullable ConfigMap section) {
        return section == null ? Map.of() : RulesParser.parse(section, plans, unleasedRules, problems);
    }

    private Map<String, AmountLimits> amounts(@Nullable ConfigMap section) {
        Map<String, AmountLimits> amounts = new LinkedHashMap<>();
        if (section == null) {
            return amounts;
        }
        for (String name : section.keys()) {
            String path = section.path(name);
            ConfigMap amount = Limit.isValidName(name) ? ConfigMap.of(section.raw(name), path, problems) : null;
            if (amount == null) {
                if (!Limit.isValidName(name)) {
                    problems.error(path, "amount limits name must match " + LimitsParser.NAME_RULE);
                }
                continue;
            }
            int errorsBefore = problems.errorCount();
            amount.allowOnly("onStoreFailure", "limits");
            FailurePolicy policy = policy(amount, FailurePolicy.CLOSED);
            List<Limit> limits = amount.require("limits")
                    ? LimitsParser.parse(amount.raw("limits"), amount.path("limits"), true, problems) : null;
            if (limits != null) {
                ConfigChecks.capacityWarnings(limits, amount.path("limits"), problems);
            }
            if (problems.errorCount() == errorsBefore && limits != null && policy != null) {
                construct(path, () -> amounts.put(name, AmountLimits.of(name, limits, policy)));
            }
        }
        return amounts;
    }

    private Map<String, Customer> customers(@Nullable ConfigMap section) {
        Map<String, Customer> customers = new LinkedHashMap<>();
        if (section == null) {
            return customers;
        }
        for (String id : section.keys()) {
            String path = section.path(id);
            if (id.isEmpty() || id.length() > MAX_CUSTOMER_ID) {
                problems.error(path, "customer id must be 1 to " + MAX_CUSTOMER_ID + " characters but was " + id.length());
                continue;
            }
            customerIds.add(id);
            ConfigMap customer = ConfigMap.of(section.raw(id), path, problems);
            if (customer == null) {
                continue;
            }
            int errorsBefore = problems.errorCount();
            customer.allowOnly("plan", "multiplier");
            customer.require("plan");
            String plan = customer.string("plan");
            if (plan != null && plansRead && !planNames.contains(plan)) {
                problems.error(customer.path("plan"), unknownPlan(plan));
            }
            Double multiplier = customer.has("multiplier") ? customer.positiveNumber("multiplier") : Double.valueOf(1);
            if (problems.errorCount() == errorsBefore && plan != null && multiplier != null) {
                construct(path, () -> customers.put(id, Customer.of(id, plan, multiplier)));
            }
        }
        return customers;
    }

    private Map<String, String> apiKeys(ConfigMap top) {
        Map<String, String> apiKeys = new LinkedHashMap<>();
        Map<String, String> firstPathByHash = new HashMap<>();
        List<Object> items = top.list("apiKeys");
        for (int i = 0; items != null && i < items.size(); i++) {
            ConfigMap key = ConfigMap.of(items.get(i), ConfigProblems.index("apiKeys", i), problems);
            if (key == null) {
                continue;
            }
            key.allowOnly("sha256", "customer");
            key.require("sha256", "customer");
            String hash = key.string("sha256");
            if (hash != null && !SHA256.matcher(hash).matches()) {
                problems.error(key.path("sha256"), "must be 64 hex characters (the SHA-256 of the API key, see ApiKeys)"
                        + " but was " + ConfigProblems.quote(hash));
                hash = null;
            }
            hash = hash == null ? null : hash.toLowerCase(Locale.ROOT);
            String first = hash == null ? null : firstPathByHash.putIfAbsent(hash, key.path("sha256"));
            if (first != null) {
                problems.error(key.path("sha256"), "duplicate API key hash (already at " + first + ")");
            }
            String customer = key.string("customer");
            if (customer != null && !customerIds.contains(customer)) {
                problems.error(key.path("customer"), "unknown customer " + ConfigProblems.quote(customer));
            } else if (hash != null && customer != null && first == null) {
                apiKeys.put(hash, customer);
            }
        }
        return apiKeys;
    }

    private @Nullable FailurePolicy policy(ConfigMap map, FailurePolicy defaultPolicy) {
        if (!map.has("onStoreFailure")) {
            return defaultPolicy;
        }
        String policy = map.choice("onStoreFailure", "open", "closed", "local");
        return policy == null ? null : FailurePolicy.valueOf(policy.toUpperCase(Locale.ROOT));
    }

    /** The {@code mode} of a map: enforce or shadow, case-insensitive; null with an error otherwise. */
    static @Nullable Mode mode(ConfigMap map) {
        String mode = map.choice("mode", "enforce", "shadow");
        return mode == null ? null : Mode.valueOf(mode.toUpperCase(Locale.ROOT));
    }

    private String unknownPlan(String plan) {
        return "unknown plan " + ConfigProblems.quote(plan) + " (known: " + String.join(", ", planNames) + ")";
    }

    /** Runs a record constructor; should it still refuse the values, that is an error at {@code path}. */
    private <T> @Nullable T construct(String path, Supplier<T> constructor) {
        try {
            return constructor.get();
        } catch (IllegalArgumentException e) {
            problems.error(path, String.valueOf(e.getMessage()));
            return null;
        }
    }
}
