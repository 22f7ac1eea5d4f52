package dev.quota.jaxrs.admin;

import dev.quota.core.AmountLimits;
import dev.quota.core.Concurrency;
import dev.quota.core.Customer;
import dev.quota.core.Identity;
import dev.quota.core.InFlightStanding;
import dev.quota.core.Limit;
import dev.quota.core.LimitStatus;
import dev.quota.core.Mode;
import dev.quota.core.Plan;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaDecision;
import dev.quota.core.Refill;
import dev.quota.core.RouteMatch;
import dev.quota.core.Rule;
import dev.quota.core.StoreHealth;
import dev.quota.core.TokenLeasing;
import dev.quota.core.TopCustomers;
import dev.quota.core.net.Cidr;
import dev.quota.jaxrs.internal.JsonWriter;
import dev.quota.jaxrs.internal.RateLimitHeaders;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The JSON documents of {@link QuotaAdminResource}. The config summary names plans, rules, limits
 * and allow-listed ranges, and counts customers and keys: API key hashes and allow-listed customer
 * ids never leave the server.
 */
final class AdminDocuments {

    private AdminDocuments() {
    }

    /**
     * {@code {"customer":"acme","plan":"free","multiplier":1.0,"configVersion":3,"limits":[{"policy":
     * "free-burst","capacity":20,"refill":{...},"remaining":19,"resetSeconds":1,"requests":true}],"inFlight":[...]}}
     * ({@link #inFlight}).
     */
    static String standing(Customer customer, long configVersion, List<LimitStatus> limits,
                           List<InFlightStanding> inFlight) {
        JsonWriter json = new JsonWriter().beginObject()
                .member("customer", customer.id())
                .member("plan", customer.plan())
                .name("multiplier").value(customer.multiplier())
                .member("configVersion", configVersion)
                .name("limits").beginArray();
        for (LimitStatus status : limits) {
            json.beginObject()
                    .member("policy", status.policy())
                    .member("capacity", status.limit().capacity())
                    .name("refill");
            refill(json, status.limit().refill());
            json.member("remaining", status.remaining())
                    .member("resetSeconds", status.resetSeconds())
                    .name("requests").value(status.role() != LimitStatus.Role.AMOUNT)
                    .endObject();
        }
        inFlight(json.endArray().name("inFlight"), inFlight);
        return json.endObject().toString();
    }

    /**
     * {@code [{"policy":"imports-in-flight","held":2,"limit":3,"leaseTimeoutSeconds":60,
     * "oldestDeadline":"2026-12-03T10:01:00Z"}]}: {@code oldestDeadline} null when none is held.
     */
    static JsonWriter inFlight(JsonWriter json, List<InFlightStanding> inFlight) {
        json.beginArray();
        for (InFlightStanding standing : inFlight) {
            json.beginObject()
                    .member("policy", standing.policy())
                    .member("held", standing.held())
                    .member("limit", standing.limit())
                    .member("leaseTimeoutSeconds", standing.leaseTimeout().toSeconds())
                    .name("oldestDeadline");
            Instant oldest = standing.oldestDeadline();
            if (oldest == null) {
                json.nullValue();
            } else {
                json.value(oldest.toString());
            }
            json.endObject();
        }
        return json.endArray();
    }

    /**
     * What a release of a customer's leases answers: {@code {"customer":"acme","released":[...]}},
     * the in-flight limits as they stood just before.
     */
    static String released(Customer customer, List<InFlightStanding> before) {
        JsonWriter json = new JsonWriter().beginObject().member("customer", customer.id());
        inFlight(json.name("released"), before);
        return json.endObject().toString();
    }

    /** {@code {"limit":3,"leaseTimeout":"PT1M"}}, or null without an in-flight limit. */
    private static void concurrency(JsonWriter json, @Nullable Concurrency concurrency) {
        if (concurrency == null) {
            json.nullValue();
        } else {
            json.beginObject().member("limit", concurrency.limit())
                    .member("leaseTimeout", concurrency.leaseTimeout().toString()).endObject();
        }
    }

    /**
     * The active config without secrets: version, switches, identity, plans, rules, amounts, counts;
     * the service's leasing settings, {@code "tokenLeasing":{"enabled":true,"hotRate":50,
     * "leaseTime":"PT0.5S","fleetFraction":0.1,"maxKeys":10000}}; and the store's health. A plan's
     * or rule's {@code leasing} is {@code on} when its buckets are leased once hot: the service
     * leases, the config does not turn it off for it, and its mode is enforce.
     */
    static String config(QuotaConfig config, TokenLeasing leasing, StoreHealth health) {
        boolean leases = leasing.enabled();
        JsonWriter json = new JsonWriter().beginObject()
                .member("version", config.version())
                .name("enabled").value(config.enabled())
                .member("mode", lower(config.mode()))
                .member("leasing", config.leasing().enabled() ? "on" : "off");
        json.name("tokenLeasing").beginObject()
                .name("enabled").value(leases)
                .member("hotRate", leasing.hotRate())
                .member("leaseTime", leasing.leaseTime().toString())
                .name("fleetFraction").value(leasing.fleetFraction())
                .member("maxKeys", leasing.maxKeys())
                .endObject();
        identity(json.name("identity"), config.identity());
        json.name("plans").beginArray();
        for (Plan plan : sorted(config.plans().values(), Plan::name)) {
            json.beginObject().member("name", plan.name())
                    .member("mode", lower(config.modeOf(plan)))
                    .member("leasing", leases && config.leasing().leasesPlan(plan.name())
                            && config.modeOf(plan) == Mode.ENFORCE ? "on" : "off")
                    .member("onStoreFailure", lower(plan.onStoreFailure()));
            limits(json.name("limits"), plan.limits());
            concurrency(json.name("concurrency"), plan.concurrency());
            json.endObject();
        }
        json.endArray().name("rules").beginArray();
        for (Rule rule : sorted(config.rules().values(), Rule::name)) {
            json.beginObject().member("name", rule.name()).name("matches").beginArray();
            for (RouteMatch match : rule.matches()) {
                json.value(match.toString());
            }
            json.endArray().member("cost", rule.cost()).member("mode", lower(config.modeOf(rule)))
                    .member("leasing", leases && config.leasing().leasesRule(rule.name())
                            && config.modeOf(rule) == Mode.ENFORCE ? "on" : "off");
            if (rule.onStoreFailure() != null) {
                json.member("onStoreFailure", lower(rule.onStoreFailure()));
            }
            limits(json.name("perCustomer"), rule.perCustomer());
            limits(json.name("shared"), rule.shared());
            concurrency(json.name("concurrency"), rule.concurrency());
            json.endObject();
        }
        json.endArray().name("amounts").beginArray();
        for (AmountLimits amounts : sorted(config.amounts().values(), AmountLimits::name)) {
            json.beginObject().member("name", amounts.name())
                    .member("onStoreFailure", lower(amounts.onStoreFailure()));
            limits(json.name("limits"), amounts.limits());
            json.endObject();
        }
        json.endArray()
                .member("customers", config.customers().size())
                .member("apiKeys", config.apiKeys().size())
                .name("allow").beginObject()
                .member("customers", config.allow().customers().size())
                .member("apiKeys", config.allow().apiKeys().size());
        cidrs(json.name("cidrs"), config.allow().cidrs());
        json.endObject().name("warnings").beginArray();
        for (String warning : config.warnings()) {
            json.value(warning);
        }
        json.endArray();
        store(json.name("store"), health);
        return json.endObject().toString();
    }

    /** The store's health: what it is, its breaker, an established outage, decisions made instead of it. */
    private static void store(JsonWriter json, StoreHealth health) {
        json.beginObject().member("describe", health.store())
                .member("breaker", health.breaker() == null ? "none" : lower(health.breaker()))
                .name("outage").value(health.outage())
                .name("fallbackDecisions").beginObject();
        for (QuotaDecision.Fallback.Kind kind : QuotaDecision.Fallback.Kind.values()) {
            json.member(lower(kind), health.fallbackDecisions().getOrDefault(kind, 0L));
        }
        json.endObject().endObject();
    }

    private static void identity(JsonWriter json, Identity identity) {
        json.beginObject()
                .member("header", identity.header())
                .member("missingKey", lower(identity.missingKey()))
                .member("anonymousPlan", identity.anonymousPlan());
        cidrs(json.name("trustedProxies"), identity.trustedProxies());
        json.member("ipv6Prefix", identity.ipv6Prefix());
        String userHeader = identity.userHeader();
        if (userHeader == null) {
            json.name("userHeader").nullValue();
        } else {
            json.member("userHeader", userHeader);
        }
        limits(json.name("failedKeys"), List.of(identity.failedKeys()));
        json.endObject();
    }

    private static void limits(JsonWriter json, List<Limit> limits) {
        json.beginArray();
        for (Limit limit : limits) {
            json.beginObject().member("name", limit.name()).member("capacity", limit.capacity()).name("refill");
            refill(json, limit.refill());
            json.member("windowSeconds", RateLimitHeaders.windowSeconds(limit)).endObject();
        }
        json.endArray();
    }

    /**
     * {@code {"scope":"instance","since":"2026-11-29T09:55:00Z","until":"2026-11-29T10:00:30Z","byRefusals":
     * [{"rank":1,"customer":"acme","kind":"account","count":3,"atLeast":3}],"bySpending":[...]}}: this
     * instance's counts only, which {@code scope} says so that no reader takes them for the whole service.
     */
    static String topCustomers(TopCustomers top) {
        JsonWriter json = new JsonWriter().beginObject()
                .member("scope", "instance")
                .member("since", top.since().toString())
                .member("until", top.until().toString());
        ranking(json.name("byRefusals"), top.byRefusals());
        ranking(json.name("bySpending"), top.bySpending());
        return json.endObject().toString();
    }

    private static void ranking(JsonWriter json, List<TopCustomers.Entry> entries) {
        json.beginArray();
        int rank = 1;
        for (TopCustomers.Entry entry : entries) {
            json.beginObject().member("rank", rank++)
                    .member("customer", entry.customer())
                    .member("kind", lower(entry.kind()))
                    .member("count", entry.count())
                    .member("atLeast", entry.atLeast())
                    .endObject();
        }
        json.endArray();
    }

    /** {@code {"type":"greedy","tokens":10,"period":"PT1S"}} or {@code {"type":"calendar","unit":"days","zone":"UTC"}}. */
    private static void refill(JsonWriter json, Refill refill) {
        json.beginObject();
        if (refill instanceof Refill.Greedy greedy) {
            json.member("type", "greedy").member("tokens", greedy.tokens()).member("period", greedy.period().toString());
        } else if (refill instanceof Refill.Interval interval) {
            json.member("type", "interval").member("tokens", interval.tokens())
                    .member("period", interval.period().toString());
        } else {
            Refill.Calendar calendar = (Refill.Calendar) refill;
            json.member("type", "calendar").member("unit", lower(calendar.unit()))
                    .member("zone", calendar.zone().getId());
        }
        json.endObject();
    }

    private static void cidrs(JsonWriter json, List<Cidr> cidrs) {
        json.beginArray();
        for (Cidr cidr : cidrs) {
            json.value(cidr.toString());
        }
        json.endArray();
    }

    private static <T> List<T> sorted(java.util.Collection<T> values, java.util.function.Function<T, String> name) {
        return values.stream().sorted(Comparator.comparing(name)).toList();
    }

    private static String lower(@Nullable Object value) {
        return String.valueOf(value).toLowerCase(Locale.ROOT);
    }
}
