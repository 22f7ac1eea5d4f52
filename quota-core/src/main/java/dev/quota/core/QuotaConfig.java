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
 * reports every error with its path; in code, made by {@link #builder()}. Values are immutable and
 * equal when every setting is; a reload produces a new config with a higher {@link #version()}. A
 * setting added in a later release gets a default and a builder method, so code that builds a
 * config keeps compiling.
 */
public final class QuotaConfig {

    private final long version;
    private final Identity identity;
    private final Map<String, Plan> plans;
    private final Map<String, Rule> rules;
    private final Map<String, AmountLimits> amounts;
    private final Map<String, Customer> customers;
    private final Map<String, String> apiKeys;
    private final List<String> warnings;
    private final boolean enabled;
    private final Mode mode;
    private final AllowList allow;
    private final Streams streams;
    private final Leasing leasing;

    private QuotaConfig(long version, Identity identity, Map<String, Plan> plans, Map<String, Rule> rules,
                        Map<String, AmountLimits> amounts, Map<String, Customer> customers,
                        Map<String, String> apiKeys, List<String> warnings, boolean enabled, Mode mode,
                        AllowList allow, Streams streams, Leasing leasing) {
        this.version = version;
        this.identity = identity;
        this.plans = Map.copyOf(plans);
        this.rules = Map.copyOf(rules);
        this.amounts = Map.copyOf(amounts);
        this.customers = Map.copyOf(customers);
        this.apiKeys = Map.copyOf(apiKeys);
        this.warnings = List.copyOf(warnings);
        this.enabled = enabled;
        this.mode = mode;
        this.allow = allow;
        this.streams = streams;
        this.leasing = leasing;
    }

    /** Which plans and rules may be served from leased shares ({@link TokenLeasing}); default {@link Leasing#ON}. */
    public Leasing leasing() {
        return leasing;
    }

    /** How metered streams are charged and cut off; default {@link Streams#DEFAULT}. */
    public Streams streams() {
        return streams;
    }

    /**
     * Increases with every change; stored buckets whose version is lower are given the new limits on
     * their next request, keeping their usage. 0: none yet (the service gives it one).
     */
    public long version() {
        return version;
    }

    /** How callers are identified; default {@link Identity#DEFAULT}. */
    public Identity identity() {
        return identity;
    }

    /** Plans by name. */
    public Map<String, Plan> plans() {
        return plans;
    }

    /** Endpoint rules by name. */
    public Map<String, Rule> rules() {
        return rules;
    }

    /** Amount limits by name. */
    public Map<String, AmountLimits> amounts() {
        return amounts;
    }

    /** Customers by id. */
    public Map<String, Customer> customers() {
        return customers;
    }

    /** Customer ids by the lower-case hex SHA-256 of the API key. */
    public Map<String, String> apiKeys() {
        return apiKeys;
    }

    /**
     * Problems that do not stop the config from loading (a daily quota smaller than a burst), each
     * with its path.
     */
    public List<String> warnings() {
        return warnings;
    }

    /**
     * The master switch; default true. False: nothing is limited, every decision is
     * {@link QuotaDecision.Outcome#BYPASSED} without touching the store.
     */
    public boolean enabled() {
        return enabled;
    }

    /** The mode of every plan and rule that does not set its own; default {@link Mode#ENFORCE}. */
    public Mode mode() {
        return mode;
    }

    /** Callers that are never limited; default {@link AllowList#NONE}. */
    public AllowList allow() {
        return allow;
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
        Builder builder = new Builder().version(version).identity(identity).enabled(enabled).mode(mode).allow(allow)
                .streams(streams).leasing(leasing);
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
                mode, allow, streams, leasing);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof QuotaConfig other && version == other.version && identity.equals(other.identity)
                && plans.equals(other.plans) && rules.equals(other.rules) && amounts.equals(other.amounts)
                && customers.equals(other.customers) && apiKeys.equals(other.apiKeys)
                && warnings.equals(other.warnings) && enabled == other.enabled && mode == other.mode
                && allow.equals(other.allow) && streams.equals(other.streams) && leasing.equals(other.leasing);
    }

    @Override
    public int hashCode() {
        return Objects.hash(version, identity, plans, rules, amounts, customers, apiKeys, warnings, enabled, mode,
                allow, streams, leasing);
    }

    @Override
    public String toString() {
        return "QuotaConfig[version=" + version + ", identity=" + identity + ", plans=" + plans + ", rules=" + rules
                + ", amounts=" + amounts + ", customers=" + customers + ", apiKeys=" + apiKeys + ", warnings="
                + warnings + ", enabled=" + enabled + ", mode=" + mode + ", allow=" + allow + ", streams=" + streams
                + ", leasing=" + leasing + "]";
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
        private Streams streams = Streams.DEFAULT;
        private Leasing leasing = Leasing.ON;

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

        /** Adds a problem that does not stop the config from loading, with its path, as the loader reports them. */
        public Builder warning(String warning) {
            warnings.add(Objects.requireNonNull(warning, "warning"));
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

        /** How metered streams are charged and cut off; default {@link Streams#DEFAULT}. */
        public Builder streams(Streams streams) {
            this.streams = Objects.requireNonNull(streams, "streams");
            return this;
        }

        /** Which plans and rules may be served from leased shares; default {@link Leasing#ON}. */
        public Builder leasing(Leasing leasing) {
            this.leasing = Objects.requireNonNull(leasing, "leasing");
            return this;
        }

        /**
         * The config.
         *
         * @throws IllegalArgumentException if a customer or API key points at something missing
         */
        public QuotaConfig build() {
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
            return new QuotaConfig(version, identity, plans, rules, amounts, customers, apiKeys, warnings, enabled,
                    mode, allow, streams, leasing);
        }
    }
}
