package dev.quota.core;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Everything the limiter enforces: plans, endpoint rules, amount limits, customers and API keys.
 *
 * <p>Usually loaded from a YAML file by {@link dev.quota.core.config.QuotaConfigLoader}, which
 * reports every error with its path. Values are immutable; a reload produces a new config with a
 * higher {@link #version()}.
 *
 * @param version   increases with every change; stored buckets whose version is lower are given
 *                  the new limits on their next request, keeping their usage
 * @param identity  how callers are identified
 * @param plans     plans by name
 * @param rules     endpoint rules by name
 * @param amounts   amount limits by name
 * @param customers customers by id
 * @param apiKeys   customer ids by the lower-case hex SHA-256 of the API key
 * @param warnings  problems that do not stop the config from loading (a daily quota smaller than a
 *                  burst), each with its path
 * @param enabled   the master switch; default true. False: nothing is limited, every decision is
 *                  {@link QuotaDecision.Outcome#BYPASSED} without touching the store
 * @param mode      the mode of every plan and rule that does not set its own; default
 *                  {@link Mode#ENFORCE}
 * @param allow     callers that are never limited; default {@link AllowList#NONE}
 */
public record QuotaConfig(long version, Identity identity, Map<String, Plan> plans, Map<String, Rule> rules,
                          Map<String, AmountLimits> amounts, Map<String, Customer> customers,
                          Map<String, String> apiKeys, List<String> warnings, boolean enabled, Mode mode,
                          AllowList allow) {

    /** @throws IllegalArgumentException if a customer or API key points at something missing */
    public QuotaConfig {
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(allow, "allow");
        plans = Map.copyOf(plans);
        rules = Map.copyOf(rules);
        amounts = Map.copyOf(amounts);
        customers = Map.copyOf(customers);
        apiKeys = Map.copyOf(apiKeys);
        warnings = List.copyOf(warnings);
        for (Customer customer : customers.values()) {
            if (!plans.containsKey(customer.plan())) {
                throw new IllegalArgumentException(
                        "customer " + customer.id() + " is on unknown plan " + customer.plan());
            }
        }
        for (var entry : apiKeys.entrySet()) {
            if (!customers.containsKey(entry.getValue())) {
                throw new IllegalArgumentException("an API key points at unknown customer " + entry.getValue());
            }
        }
    }

    /** A config that is enabled, enforces, and allow-lists nobody. */
    public QuotaConfig(long version, Identity identity, Map<String, Plan> plans, Map<String, Rule> rules,
                       Map<String, AmountLimits> amounts, Map<String, Customer> customers,
                       Map<String, String> apiKeys, List<String> warnings) {
        this(version, identity, plans, rules, amounts, customers, apiKeys, warnings, true, Mode.ENFORCE,
                AllowList.NONE);
    }

    /** The mode {@code plan}'s limits follow: its own, else the global one. */
    public Mode modeOf(Plan plan) {
        return plan.mode() != null ? plan.mode() : mode;
    }

    /** The mode {@code rule}'s own limits follow: its own, else the global one. */
    public Mode modeOf(Rule rule) {
        return rule.mode() != null ? rule.mode() : mode;
    }

    /** The plan named {@code name}, or empty. */
    public Optional<Plan> plan(String name) {
        return Optional.ofNullable(plans.get(name));
    }

    /** The rule named {@code name}, or empty. */
    public Optional<Rule> rule(String name) {
        return Optional.ofNullable(rules.get(name));
    }

    /** The customer an API key's SHA-256 hex maps to, or null. */
    public @Nullable Customer customerForKeyHash(String sha256Hex) {
        String id = apiKeys.get(sha256Hex);
        return id == null ? null : customers.get(id);
    }

    /** A builder: every section empty, identity {@link Identity#DEFAULT}, enabled, enforcing, nobody allow-listed. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this config's values, to change some of them. */
    public Builder toBuilder() {
        Builder builder = new Builder().version(version).identity(identity).enabled(enabled).mode(mode).allow(allow);
        builder.plans.putAll(plans);
        builder.rules.putAll(rules);
        builder.amounts.putAll(amounts);
        builder.customers.putAll(customers);
        builder.apiKeys.putAll(apiKeys);
        builder.warnings.addAll(warnings);
        return builder;
    }

    /** The same config with another version. */
    public QuotaConfig withVersion(long newVersion) {
        return new QuotaConfig(newVersion, identity, plans, rules, amounts, customers, apiKeys, warnings, enabled,
                mode, allow);
    }

    /**
     * Settings for a {@link QuotaConfig} built in code (the YAML loader is the usual way). Adding a
     * plan, rule, amount limits or customer of a name already added replaces it. Cross-checks (a
     * customer on a missing plan) run in {@link #build()}.
     */
    public static final class Builder {
        private long version;
        private Identity identity = Identity.DEFAULT;
        private final Map<String, Plan> plans = new java.util.LinkedHashMap<>();
        private final Map<String, Rule> rules = new java.util.LinkedHashMap<>();
        private final Map<String, AmountLimits> amounts = new java.util.LinkedHashMap<>();
        private final Map<String, Customer> customers = new java.util.LinkedHashMap<>();
        private final Map<String, String> apiKeys = new java.util.LinkedHashMap<>();
        private final List<String> warnings = new java.util.ArrayList<>();
        private boolean enabled = true;
        private Mode mode = Mode.ENFORCE;
        private AllowList allow = AllowList.NONE;

        private Builder() {
        }

        /** The version; default 0: the service gives the config one when it becomes active. */
        public Builder version(long version) {
            this.version = version;
            return this;
        }

        /** How callers are identified; default {@link Identity#DEFAULT}. */
        public Builder identity(Identity identity) {
            this.identity = Objects.requireNonNull(identity, "identity");
            return this;
        }

        /** Adds (or replaces, by name) a plan. */
        public Builder plan(Plan plan) {
            plans.put(plan.name(), plan);
            return this;
        }

        /** Adds (or replaces, by name) a rule. */
        public Builder rule(Rule rule) {
            rules.put(rule.name(), rule);
            return this;
        }

        /** Adds (or replaces, by name) amount limits. */
        public Builder amounts(AmountLimits limits) {
            amounts.put(limits.name(), limits);
            return this;
        }

        /** Adds (or replaces, by id) a customer. */
        public Builder customer(Customer customer) {
            customers.put(customer.id(), customer);
            return this;
        }

        /**
         * Maps an API key, given as the lower-case hex SHA-256 of its UTF-8 bytes, to a customer id.
         *
         * @throws IllegalArgumentException if the hash is not 64 lower-case hex digits
         */
        public Builder apiKey(String sha256Hex, String customerId) {
            if (!sha256Hex.matches("[0-9a-f]{64}")) {
                throw new IllegalArgumentException("an API key hash must be 64 lower-case hex digits but was "
                        + sha256Hex.length() + " characters");
            }
            apiKeys.put(sha256Hex, Objects.requireNonNull(customerId, "customerId"));
            return this;
        }

        /** The master switch; default true. */
        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        /** The global mode; default {@link Mode#ENFORCE}. */
        public Builder mode(Mode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /** Callers never limited; default {@link AllowList#NONE}. */
        public Builder allow(AllowList allow) {
            this.allow = Objects.requireNonNull(allow, "allow");
            return this;
        }

        /**
         * The config.
         *
         * @throws IllegalArgumentException if a customer or API key points at something missing
         */
        public QuotaConfig build() {
            return new QuotaConfig(version, identity, plans, rules, amounts, customers, apiKeys, warnings, enabled,
                    mode, allow);
        }
    }
}
