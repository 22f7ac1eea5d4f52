package dev.quota.core;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.quota.core.internal.CalendarWindow;
import dev.quota.core.internal.Hashes;
import dev.quota.core.internal.Scratch;
import dev.quota.core.spi.BucketKey;
import dev.quota.core.spi.BucketSpec;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Which buckets a request touches, and where they are stored: the one place that knows the key
 * scheme. Decisions, standings, resets and the failed-key guard all ask here.
 *
 * <p>Keys ({@code quota} is the prefix, {@code <c>} 22 characters of SHA-256 over the customer's
 * kind and id, base64url):
 * <ul>
 *   <li>{@code quota:{c.<c>}:p}: the plan's rolling limits, together in one bucket;
 *   <li>{@code quota:{c.<c>}:r:<rule>}: a rule's per-customer limits;
 *   <li>{@code quota:{c.<c>}:a:<amounts>:<qualifier>}: amount limits per qualifier (currency);
 *   <li>{@code quota:{c.<c>}:l} and {@code quota:{c.<c>}:l:<rule>}: the in-flight leases of the
 *       customer's plan and of a rule ({@link Concurrency});
 *   <li>{@code quota:{s.<rule>}}: a rule's limits shared by every customer;
 *   <li>{@code quota:{f.<h>}}: failed API-key lookups of one client address group;
 *   <li>a calendar limit appends {@code :<limit>:<window start, epoch seconds>} and is a bucket of
 *       its own per window, so a day is exactly a day, also across daylight-saving changes.
 * </ul>
 * The braces are Redis Cluster hash tags: all of a customer's buckets live in one slot, so the
 * Redis store takes them in one atomic step. No caller string reaches a key unhashed except names
 * the config validated and amount qualifiers ({@code [A-Za-z0-9_.-]}), so a caller can neither reach
 * another customer's key nor pick a slot.
 */
final class BucketLayout {

    private static final int PART_SLOTS = 4096;
    private static final int RECENT_SLOTS = 64;
    /**
     * Each thread's laying, whose list a request's draws are gathered in before they are listed immutably
     * ({@link #listed}): a one-limit request's draws cost a list of one, not a list and its array.
     * Laying out is not reentrant (nothing it calls lays out; the {@link Scratch} throws if that
     * changes), and the list is cleared and given back after each use.
     */
    private static final Scratch<Laying> GATHERED = Scratch.perThread("the thread's list of draws",
            () -> new Laying(new ArrayList<>(8)));

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.-]{1,32}");
    /** What a customer's plan key ends with, after the key part. */
    private static final String PLAN_TAIL = "}:p";

    /** The prefix of the failed-keys policy name: {@code identity-failed-keys}. */
    static final String GUARD_POLICY_PREFIX = "identity";

    private final String prefix;
    /** What a customer's keys begin with, before the key part: <code>quota:{c.</code> */
    private final String customerHead;
    private final Clock clock;
    /**
     * The plan keys of customers seen lately, in a table of {@value #PART_SLOTS} slots: a customer's
     * slot is its hash's, and a newcomer seen there twice in a row takes it over ({@link #planKey}).
     * A busy customer keeps its slot, so its decisions hash nothing, and customers seen once in a
     * while do not push it out; with many customers most decisions hash their own (a SHA-256,
     * allocating the key's string only: quota-bench's scenario 1, {@code --scenarios many}), and
     * the table, shared by all threads, never holds more than its slots (an id, a kind and a key
     * each), however many customers there are.
     * Slots are read and replaced without a lock: an entry is immutable (final fields), so a reader
     * sees one whole entry or null. Ids that share a slot only cost each other a hash.
     */
    private final CustomerPart[] customerParts = new CustomerPart[PART_SLOTS];
    /**
     * The hash of the last customer not kept in each slot of {@link #customerParts}: the next
     * decision of the same hash there keeps its customer ({@link #planKey}).
     */
    private final int[] newcomers = new int[PART_SLOTS];
    /**
     * The specs of rolling limits used last, in a table of {@value #RECENT_SLOTS} slots by their
     * key's hash, found without building a key or a loader (a decision asks for one per bucket);
     * a miss asks {@link #rolling}. Entries are immutable, read and replaced without a lock.
     */
    private final Rolling[] recentRolling = new Rolling[RECENT_SLOTS];
    /** Specs of rolling limits per limits, scale, share and config version, so stores find their configuration by instance. */
    private final Cache<SpecKey, Rolling> rolling = Caffeine.newBuilder()
            .maximumSize(10_000).executor(Runnable::run).build();
    /** The keys of rules' shared buckets, by rule name. */
    private final Map<String, BucketKey> sharedKeys = new ConcurrentHashMap<>();
    /** Specs of calendar windows per limit instance, window and config version. */
    private final Cache<WindowKey, BucketSpec> windows = Caffeine.newBuilder()
            .maximumSize(10_000).executor(Runnable::run).build();
    /** Lease-set specs per in-flight limit, scale, share, config version and policy name. */
    private final Cache<LeaseKey, LeaseSet> leaseSets = Caffeine.newBuilder()
            .maximumSize(10_000).executor(Runnable::run).build();
    /** The failed-keys limit as a list, per identity settings, so its spec is found by instance too. */
    private final Cache<Identity, List<Limit>> guardLimits = Caffeine.newBuilder()
            .weakKeys().maximumSize(100).executor(Runnable::run).build();

    /** @throws IllegalArgumentException if the prefix is not 1-32 of {@code [A-Za-z0-9_.-]} */
    BucketLayout(String prefix, Clock clock) {
        if (!PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("key prefix must match [A-Za-z0-9_.-]{1,32} but was \"" + prefix + "\"");
        }
        this.prefix = prefix;
        this.customerHead = prefix + ":{c.";
        this.clock = clock;
    }

    Clock clock() {
        return clock;
    }

    /**
     * The buckets of one request: the plan (the rule's cost), the rule per customer and shared, and
     * the amount's limits, each with their calendar windows; limits cut to this instance's
     * {@code share} ({@link LocalShare#WHOLE} on the shared store).
     */
    List<Draw> request(QuotaConfig config, Customer customer, Plan plan, @Nullable Rule rule,
                       @Nullable Amount amount, @Nullable AmountLimits amountLimits, LocalShare share) {
        // the plan's bucket, its calendar limit and leases; the rule's two and the amount's
        Laying at = GATHERED.take().of(share, config.version(), customer.multiplier(), null);
        try {
            BucketKey c = planKey(customer);
            addPlan(at, config, c, plan, rule);
            addAfterPlan(at, config, c, plan, rule, amount, amountLimits);
            return listed(at.out);
        } finally {
            at.out.clear(); // keeps no draw past the request (and none after a throw)
            GATHERED.giveBack(at);
        }
    }

    /** {@code draws} as an immutable list of its own, without the copies {@link List#copyOf} makes of a few. */
    private static List<Draw> listed(List<Draw> draws) {
        return switch (draws.size()) {
            case 1 -> List.of(draws.get(0));
            case 2 -> List.of(draws.get(0), draws.get(1));
            default -> List.copyOf(draws);
        };
    }

    /**
     * The plan's buckets of a request: the rule's cost (1 without a rule), and the in-flight leases
     * of the plan and the rule. What a request whose amount is in its body is charged when it
     * arrives, before the body is read: it is running from then on.
     */
    List<Draw> plan(QuotaConfig config, Customer customer, Plan plan, @Nullable Rule rule, LocalShare share) {
        List<Draw> out = new ArrayList<>(2);
        addPlan(new Laying(out).of(share, config.version(), customer.multiplier(), null), config, planKey(customer), plan,
                rule);
        return out;
    }

    /**
     * A request's buckets besides the plan's: the rule per customer and shared, and the amount's
     * limits. What such a request is charged once its body is read.
     */
    List<Draw> afterPlan(QuotaConfig config, Customer customer, Plan plan, @Nullable Rule rule,
                         @Nullable Amount amount, @Nullable AmountLimits amountLimits, LocalShare share) {
        List<Draw> out = new ArrayList<>(4);
        addAfterPlan(new Laying(out).of(share, config.version(), customer.multiplier(), null), config, planKey(customer),
                plan, rule, amount, amountLimits);
        return out;
    }

    private void addPlan(Laying at, QuotaConfig config, BucketKey c, Plan plan, @Nullable Rule rule) {
        long cost = rule == null ? 1 : rule.cost();
        add(at, c, plan.name(), plan.limits(), cost,
                Terms.of(LimitStatus.Role.PLAN, plan.onStoreFailure(), config.modeOf(plan)));
        Concurrency planLeases = plan.concurrency();
        if (planLeases != null) {
            addLeases(at, customerKey(part(c), "l"), plan.name(), planLeases,
                    Terms.of(LimitStatus.Role.IN_FLIGHT, plan.onStoreFailure(), config.modeOf(plan)));
        }
        Concurrency ruleLeases = rule == null ? null : rule.concurrency();
        if (rule != null && ruleLeases != null) {
            FailurePolicy policy = rule.onStoreFailure() != null ? rule.onStoreFailure() : plan.onStoreFailure();
            addLeases(at, customerKey(part(c), "l:", rule.name()), rule.name(), ruleLeases,
                    Terms.of(LimitStatus.Role.IN_FLIGHT, policy, config.modeOf(rule)));
        }
    }

    /** Appends the lease set of one in-flight limit, scaled by the customer's multiplier and cut to the share. */
    private void addLeases(Laying at, String key, String owner, Concurrency concurrency, Terms terms) {
        LeaseSet set = leaseSets.get(new LeaseKey(concurrency, at.scale, at.share, at.version, owner),
                k -> LeaseSet.of(concurrency, at.scale, at.share, at.version, owner));
        at.out.add(new Draw(new BucketKey(key), set.spec, 1, new Draw.Shape(set.limits, set.policies, null,
                terms.role, terms.onFailure, terms.mode, set.noShare)));
    }

    private void addAfterPlan(Laying at, QuotaConfig config, BucketKey planKey, Plan plan, @Nullable Rule rule,
                              @Nullable Amount amount, @Nullable AmountLimits amountLimits) {
        if (rule == null && (amount == null || amountLimits == null)) {
            return; // the plan alone: its key part is not needed as a string of its own
        }
        String c = part(planKey);
        if (rule != null) {
            FailurePolicy policy = rule.onStoreFailure() != null ? rule.onStoreFailure() : plan.onStoreFailure();
            Mode mode = config.modeOf(rule);
            add(at, new BucketKey(customerKey(c, "r:", rule.name())), rule.name(), rule.perCustomer(), 1,
                    Terms.of(LimitStatus.Role.RULE, policy, mode));
            if (!rule.shared().isEmpty()) { // every customer's: not scaled by this one's multiplier
                add(at.unscaled(), sharedKey(rule), rule.name(), rule.shared(), 1,
                        Terms.of(LimitStatus.Role.SHARED, policy, mode));
            }
        }
        if (amount != null && amountLimits != null) {
            addAmount(at, config, c, amountLimits, amount.qualifier(), amount.value());
        }
    }

    /** The buckets of an amount on its own (a resource's own check after the request was admitted). */
    List<Draw> amount(QuotaConfig config, Customer customer, AmountLimits limits, Amount amount, LocalShare share) {
        List<Draw> out = new ArrayList<>(2);
        addAmount(new Laying(out).of(share, config.version(), customer.multiplier(), null), config,
                part(planKey(customer)), limits, amount.qualifier(), amount.value());
        return out;
    }

    /**
     * The customer's own request buckets: the plan, and every rule's per-customer limits (by rule
     * name). What the standing reports and what a reset deletes, current calendar windows included.
     */
    List<Draw> customerBuckets(QuotaConfig config, Customer customer, Plan plan) {
        Instant now = clock.instant();
        BucketKey planKey = planKey(customer);
        String c = part(planKey);
        List<Draw> out = new ArrayList<>();
        Laying at = new Laying(out).of(LocalShare.WHOLE, config.version(), customer.multiplier(), now);
        add(at, planKey, plan.name(), plan.limits(), 1,
                Terms.of(LimitStatus.Role.PLAN, plan.onStoreFailure(), Mode.ENFORCE));
        List<Rule> rules = new ArrayList<>(config.rules().values());
        rules.sort(Comparator.comparing(Rule::name));
        for (Rule rule : rules) {
            add(at, new BucketKey(customerKey(c, "r:", rule.name())), rule.name(), rule.perCustomer(), 1,
                    Terms.of(LimitStatus.Role.RULE, plan.onStoreFailure(), Mode.ENFORCE));
        }
        return out;
    }

    /**
     * The customer's in-flight lease sets: the plan's (when it has {@code concurrency}), then every
     * rule's that has one (by rule name), whole (not cut to a share) and scaled by the customer's
     * multiplier. What the standing shows in flight and what a lease release deletes.
     */
    List<Draw> customerLeases(QuotaConfig config, Customer customer, Plan plan) {
        String c = part(planKey(customer));
        List<Draw> out = new ArrayList<>();
        Laying at = new Laying(out).of(LocalShare.WHOLE, config.version(), customer.multiplier(), null);
        Concurrency planLeases = plan.concurrency();
        if (planLeases != null) {
            addLeases(at, customerKey(c, "l"), plan.name(), planLeases,
                    Terms.of(LimitStatus.Role.IN_FLIGHT, plan.onStoreFailure(), Mode.ENFORCE));
        }
        List<Rule> rules = new ArrayList<>(config.rules().values());
        rules.sort(Comparator.comparing(Rule::name));
        for (Rule rule : rules) {
            Concurrency ruleLeases = rule.concurrency();
            if (ruleLeases != null) {
                addLeases(at, customerKey(c, "l:", rule.name()), rule.name(), ruleLeases,
                        Terms.of(LimitStatus.Role.IN_FLIGHT, plan.onStoreFailure(), Mode.ENFORCE));
            }
        }
        return out;
    }

    /** The customer's amount buckets for one qualifier, for its standing. */
    List<Draw> amountBuckets(QuotaConfig config, Customer customer, AmountLimits limits, String qualifier) {
        List<Draw> out = new ArrayList<>(2);
        addAmount(new Laying(out).of(LocalShare.WHOLE, config.version(), customer.multiplier(), null), config,
                part(planKey(customer)), limits, qualifier, 1);
        return out;
    }

    /** The failed-key bucket of one client address group; policy {@code identity-failed-keys}. */
    Draw failedKeys(QuotaConfig config, String addressGroup, LocalShare share) {
        List<Draw> out = new ArrayList<>(1);
        List<Limit> limits = guardLimits.get(config.identity(), identity -> List.of(identity.failedKeys()));
        add(new Laying(out).of(share, config.version(), 1.0, null),
                new BucketKey(prefix + ":{f." + Hashes.keyPart(addressGroup) + "}"), GUARD_POLICY_PREFIX, limits, 1,
                Terms.of(LimitStatus.Role.FAILED_KEYS, FailurePolicy.LOCAL, config.mode()));
        return out.get(0);
    }

    private void addAmount(Laying at, QuotaConfig config, String c, AmountLimits limits, String qualifier,
                           long tokens) {
        add(at, new BucketKey(prefix + ":{c." + c + "}:a:" + limits.name() + ":" + qualifier), limits.name(),
                limits.limits(), tokens, Terms.of(LimitStatus.Role.AMOUNT, limits.onStoreFailure(), config.mode()));
    }

    /**
     * What every bucket of one layout shares: the list the draws go to, this instance's share of
     * the limits, the config version, the scale of the customer's own limits (its multiplier), and
     * the time that places calendar windows (null: the clock's, read only when there is a
     * calendar limit). A request's decision lays out in the thread's one ({@link #GATHERED}), set
     * for it by {@link #of}, so a decision makes none; the other layouts make their own.
     */
    private static final class Laying {
        final List<Draw> out;
        LocalShare share = LocalShare.WHOLE;
        long version;
        double scale = 1.0;
        @Nullable Instant now;

        Laying(List<Draw> out) {
            this.out = out;
        }

        /** This laying, set for one layout. */
        Laying of(LocalShare share, long version, double scale, @Nullable Instant now) {
            this.share = share;
            this.version = version;
            this.scale = scale;
            this.now = now;
            return this;
        }

        /** The same, for limits every customer shares: not scaled by this customer's multiplier. */
        Laying unscaled() {
            return scale == 1.0 ? this : new Laying(out).of(share, version, 1.0, now);
        }
    }

    /**
     * How a bucket's draw is charged and reported: its role, its failure policy and its mode. One
     * instance per combination ({@link #of}), so a decision makes none.
     */
    private record Terms(LimitStatus.Role role, FailurePolicy onFailure, Mode mode) {

        // the counts, kept: values() copies its array on every call
        private static final int POLICIES = FailurePolicy.values().length;
        private static final int MODES = Mode.values().length;
        private static final Terms[] ALL = all();

        static Terms of(LimitStatus.Role role, FailurePolicy onFailure, Mode mode) {
            return ALL[index(role, onFailure, mode)];
        }

        // the ordinals place each combination in ALL, built in this JVM from the same enums: never stored
        @SuppressWarnings("EnumOrdinal")
        private static int index(LimitStatus.Role role, FailurePolicy onFailure, Mode mode) {
            return (role.ordinal() * POLICIES + onFailure.ordinal()) * MODES + mode.ordinal();
        }

        private static Terms[] all() {
            Terms[] all = new Terms[LimitStatus.Role.values().length * POLICIES * MODES];
            for (LimitStatus.Role role : LimitStatus.Role.values()) {
                for (FailurePolicy onFailure : FailurePolicy.values()) {
                    for (Mode mode : Mode.values()) {
                        all[index(role, onFailure, mode)] = new Terms(role, onFailure, mode);
                    }
                }
            }
            return all;
        }
    }

    private String customerKey(String customerPart, String suffix) {
        return prefix + ":{c." + customerPart + "}:" + suffix;
    }

    /** {@code customerKey(customerPart, kind + name)}, built at once. */
    private String customerKey(String customerPart, String kind, String name) {
        return prefix + ":{c." + customerPart + "}:" + kind + name;
    }

    /** The key of a rule's shared bucket: the same key for every decision on the rule. */
    private BucketKey sharedKey(Rule rule) {
        BucketKey key = sharedKeys.get(rule.name());
        if (key == null) {
            if (sharedKeys.size() >= 10_000) {
                sharedKeys.clear(); // rule names come from configs; reloads may rename them
            }
            key = new BucketKey(prefix + ":{s." + rule.name() + "}");
            sharedKeys.put(rule.name(), key);
        }
        return key;
    }

    /**
     * The customer's plan key: the one kept in its slot when it is this customer's, else made. A
     * customer takes over its slot on its second decision there in a row of the slot's newcomers
     * (the slot remembers the last newcomer's hash): one customer after another, each seen once in
     * a while, makes its key and nothing else, and a busy customer is kept from its second decision.
     */
    private BucketKey planKey(Customer customer) {
        // the ordinal tells the kinds apart in a hash of this JVM's slot table: never stored
        @SuppressWarnings("EnumOrdinal")
        int hash = customer.id().hashCode() * 31 + customer.kind().ordinal();
        int slot = (hash ^ hash >>> 16) & (PART_SLOTS - 1);
        CustomerPart known = customerParts[slot];
        if (known != null && known.kind == customer.kind() && known.id.equals(customer.id())) {
            return known.plan;
        }
        // the plan's key made at once around the hash: no string of the part alone, no concatenation
        BucketKey plan = new BucketKey(Hashes.keyWithPart(customerHead, customer.kind().name(), customer.id(), PLAN_TAIL));
        if (newcomers[slot] == hash) {
            customerParts[slot] = new CustomerPart(customer.id(), customer.kind(), plan);
        } else {
            newcomers[slot] = hash; // a racy write loses a newcomer at worst: it is kept a decision later
        }
        return plan;
    }

    /** The 22 characters of the key part in a customer's plan key ({@link #planKey}). */
    private String part(BucketKey plan) {
        int at = customerHead.length();
        return plan.value().substring(at, at + Hashes.PART_LENGTH);
    }

    /** A customer's plan key, by what its key part hashes: kind and id (the plan and the multiplier do not count). */
    private record CustomerPart(String id, Customer.Kind kind, BucketKey plan) {
    }

    /**
     * Appends the buckets for {@code limits}, each drawing {@code tokens}: every greedy or interval
     * limit together in one bucket at {@code baseKey}, then each calendar limit in a bucket of its
     * own for the current window. Limits are multiplied by the laying's scale, then cut to its share.
     */
    private void add(Laying laying, BucketKey baseKey, String policyPrefix, List<Limit> limits, long tokens,
                     Terms terms) {
        if (limits.isEmpty()) {
            return;
        }
        List<Draw> out = laying.out;
        double scale = laying.scale;
        LocalShare share = laying.share;
        long version = laying.version;
        Instant now = laying.now;
        LimitStatus.Role role = terms.role;
        FailurePolicy onFailure = terms.onFailure;
        Mode mode = terms.mode;
        int slot = SpecKey.hash(limits, scale, share, version, policyPrefix) & (RECENT_SLOTS - 1);
        Rolling roll = recentRolling[slot];
        if (roll == null || !roll.key.is(limits, scale, share, version, policyPrefix)) {
            roll = rolling.get(new SpecKey(limits, scale, share, version, policyPrefix), Rolling::of);
            recentRolling[slot] = roll;
        }
        if (roll.spec != null) {
            out.add(new Draw(baseKey, roll.spec, tokens,
                    roll.shape(0, roll.limits, roll.policies, null, role, onFailure, mode, roll.noShare)));
        }
        Instant at = now == null && !roll.calendars.isEmpty() ? clock.instant() : now;
        for (int i = 0; i < roll.calendars.size(); i++) {
            Instant time = Objects.requireNonNull(at, "read above when there are calendar limits");
            Window current = roll.current.get(i);
            if (current == null || !current.contains(time)) {
                current = window(roll.calendars.get(i), time, version);
                roll.current.set(i, current);
            }
            out.add(new Draw(new BucketKey(baseKey.value() + current.keySuffix), current.spec, tokens,
                    roll.shape(1 + i, roll.calendarLimits.get(i), roll.calendarPolicies.get(i), current.window, role,
                            onFailure, mode, roll.calendarNoShare.get(i))));
        }
    }

    /** The window of a calendar limit that contains {@code now}, its spec (one instance per window) and key suffix. */
    private Window window(Limit limit, Instant now, long version) {
        CalendarWindow window = CalendarWindow.containing((Refill.Calendar) limit.refill(), now);
        BucketSpec spec = windows.get(new WindowKey(limit, window.start().getEpochSecond(), version), k ->
                BucketSpec.of(List.of(new Limit(limit.name(), limit.capacity(),
                        Refill.interval(limit.capacity(), window.length()))), version));
        return new Window(window, spec, ":" + limit.name() + ":" + window.start().getEpochSecond());
    }

    /**
     * A calendar limit's current window, kept with its limits so that a decision inside it computes
     * no dates (a day in a zone is a few date-time objects to find) and looks nothing up.
     */
    private record Window(CalendarWindow window, BucketSpec spec, String keySuffix) {
        boolean contains(Instant now) {
            return !now.isBefore(window.start()) && now.isBefore(window.end());
        }
    }

    /** A limits list (by identity: config values are immutable), a scale, a share, a config version and a policy prefix. */
    private record SpecKey(List<Limit> limits, double scale, LocalShare share, long version, String policyPrefix) {
        @Override
        public boolean equals(Object o) {
            return o instanceof SpecKey k && k.is(limits, scale, share, version, policyPrefix);
        }

        @Override
        public int hashCode() {
            return hash(limits, scale, share, version, policyPrefix);
        }

        @SuppressWarnings("ReferenceEquality") // the limits by identity, on purpose (see above)
        boolean is(List<Limit> limits, double scale, LocalShare share, long version, String policyPrefix) {
            return this.limits == limits && this.scale == scale && this.share.equals(share) && this.version == version
                    && this.policyPrefix.equals(policyPrefix);
        }

        static int hash(List<Limit> limits, double scale, LocalShare share, long version, String policyPrefix) {
            int h = System.identityHashCode(limits) * 31 + Double.hashCode(scale) * 17 + share.hashCode() * 13
                    + Long.hashCode(version) + policyPrefix.hashCode();
            return h ^ h >>> 16;
        }
    }

    /** An in-flight limit, a scale, a share, a config version and the plan or rule it belongs to. */
    private record LeaseKey(Concurrency concurrency, double scale, LocalShare share, long version, String owner) {
    }

    /** The lease set of an in-flight limit, scaled and cut to a share; {@code noShare} as for {@link Rolling}. */
    private record LeaseSet(BucketSpec spec, List<Limit> limits, List<String> policies, boolean noShare) {

        static LeaseSet of(Concurrency concurrency, double scale, LocalShare share, long version, String owner) {
            Limit whole = concurrency.asLimit().scaled(scale);
            if (whole.capacity() > BucketSpec.MAX_LEASES) {
                whole = new Limit(whole.name(), BucketSpec.MAX_LEASES,
                        Refill.interval(BucketSpec.MAX_LEASES, concurrency.leaseTimeout()));
            }
            Limit part = share.of(whole);
            long slots = part != null ? part.capacity() : 1;
            BucketSpec spec = BucketSpec.leases(Concurrency.NAME, slots, concurrency.leaseTimeout(), version);
            return new LeaseSet(spec, spec.limits(), List.of(owner + "-" + Concurrency.NAME), part == null);
        }
    }

    /** A calendar limit (by identity), the start of its window and a config version. */
    private record WindowKey(Limit limit, long start, long version) {
        @Override
        @SuppressWarnings("ReferenceEquality") // the limit by identity, on purpose (see above)
        public boolean equals(Object o) {
            return o instanceof WindowKey k && k.limit == limit && k.start == start && k.version == version;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(limit) * 31 + Long.hashCode(start) * 17 + Long.hashCode(version);
        }
    }

    /**
     * The scaled limits of one owner, split into the rolling bucket (one spec) and calendar limits;
     * {@code noShare}: a rolling limit leaves this instance no token (its spec then holds the limit
     * at one token, never used), and likewise per calendar limit; {@code current}: each calendar
     * limit's window last used (any thread may replace it with the one that contains its time);
     * {@code shapes}: the draw shape last made of the rolling bucket (0) and of each calendar
     * limit (1 + its index), so that a decision on them makes a draw of its take alone.
     */
    private record Rolling(SpecKey key, @Nullable BucketSpec spec, List<Limit> limits, List<String> policies, boolean noShare,
                           List<Limit> calendars, List<List<Limit>> calendarLimits, List<List<String>> calendarPolicies,
                           List<Boolean> calendarNoShare, AtomicReferenceArray<@Nullable Window> current,
                           AtomicReferenceArray<Draw.@Nullable Shape> shapes) {

        /**
         * The shape of draw {@code i} ({@code declared}, {@code policies} and {@code noShare} are
         * always that draw's) in {@code window}, {@code role}, {@code onFailure} and {@code mode}: the
         * one kept when it is that, else a new one, kept instead (any thread may replace it; a shape
         * is immutable, so a reader sees a whole one).
         */
        Draw.Shape shape(int i, List<Limit> declared, List<String> policies, @Nullable CalendarWindow window,
                         LimitStatus.Role role, FailurePolicy onFailure, Mode mode, boolean noShare) {
            Draw.Shape known = shapes.get(i);
            if (known != null && known.is(window, role, onFailure, mode)) {
                return known;
            }
            Draw.Shape made = new Draw.Shape(declared, policies, window, role, onFailure, mode, noShare);
            shapes.set(i, made);
            return made;
        }

        static Rolling of(SpecKey key) {
            List<Limit> configured = key.limits();
            double scale = key.scale();
            LocalShare share = key.share();
            long version = key.version();
            String policyPrefix = key.policyPrefix();
            List<Limit> limits = new ArrayList<>(configured.size());
            List<String> policies = new ArrayList<>(configured.size());
            boolean noShare = false;
            List<Limit> calendars = new ArrayList<>(1);
            List<String> calendarPolicies = new ArrayList<>(1);
            List<Boolean> calendarNoShare = new ArrayList<>(1);
            for (Limit limit : configured) {
                Limit whole = limit.scaled(scale);
                Limit part = share.of(whole);
                Limit scaled = part != null ? part : new Limit(whole.name(), 1, whole.refill());
                String policy = policyPrefix + "-" + limit.name();
                if (scaled.refill() instanceof Refill.Calendar) {
                    calendars.add(scaled);
                    calendarPolicies.add(policy);
                    calendarNoShare.add(part == null);
                } else {
                    limits.add(scaled);
                    policies.add(policy);
                    noShare |= part == null;
                }
            }
            BucketSpec spec = limits.isEmpty() ? null : BucketSpec.of(limits, version);
            return new Rolling(key, spec, List.copyOf(limits), List.copyOf(policies), noShare, List.copyOf(calendars),
                    calendars.stream().map(List::of).toList(), calendarPolicies.stream().map(List::of).toList(),
                    List.copyOf(calendarNoShare), new AtomicReferenceArray<>(calendars.size()),
                    new AtomicReferenceArray<>(1 + calendars.size()));
        }
    }
}
