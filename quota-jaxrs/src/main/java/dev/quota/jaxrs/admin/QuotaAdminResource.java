package dev.quota.jaxrs.admin;

import dev.quota.core.Customer;
import dev.quota.core.InFlightStanding;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaStoreException;
import dev.quota.jaxrs.ClientAddress;
import dev.quota.jaxrs.QuotaFeature;
import dev.quota.jaxrs.internal.ProblemResponses;
import dev.quota.jaxrs.internal.ResourceChecks;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's view of the limiter, protected by a bearer token:
 * <ul>
 *   <li>{@code GET /admin/customers/{id}}: the configured customer's standing in every limit,
 *       its in-flight limits included (held, limit, oldest deadline), without taking anything; 404
 *       for an id the config does not know;
 *   <li>{@code DELETE /admin/customers/{id}/buckets}: empties nothing, refills everything: the
 *       customer's plan and rule buckets are deleted, answered 204 and logged to {@code dev.quota.audit};
 *       in-flight leases stay held;
 *   <li>{@code DELETE /admin/customers/{id}/leases?confirm=may-exceed-in-flight-limit}: frees the
 *       customer's in-flight leases, audited; without the confirmation 400 and nothing freed;
 *   <li>{@code GET /admin/config}: the active config's version, plans, rules and limits, which
 *       plans and rules are leased once hot and the service's leasing settings
 *       ({@code tokenLeasing}); customers and keys only counted, never listed;
 *   <li>{@code GET /admin/top-customers}: the customers this instance refused most often and those
 *       that spent the most plan tokens over the last minutes ({@link dev.quota.core.TopCustomers}),
 *       of this instance only: ask each instance.
 * </ul>
 * Every call needs {@code Authorization: Bearer <token>}, compared in constant time; a missing or
 * wrong token is answered 401. The token must be strong ({@link AdminTokens}: 32 characters or
 * more, about 128 bits). A store failure is answered 503. The admin calls are not counted against
 * any quota.
 *
 * <p>Wrong tokens are throttled per client address, in this JVM: after 5 (default) the address is
 * answered 429 with {@code Retry-After}, before its token is looked at, and gets one more attempt
 * every 10 s (default), so a guesser learns nothing while blocked. Refused calls are written to
 * the audit log sampled (10, then 1 a second, the rest counted). The client address is the
 * connection's peer ({@link ClientAddress#peer()}) unless {@link QuotaAdminResourceBuilder#clientAddress}
 * names another; where none is found every caller is {@code unknown} and all share one allowance,
 * and then a stranger's wrong tokens lock an operator out for as long as the stranger keeps
 * sending them.
 *
 * <p>Register it next to a {@link QuotaFeature}, which is needed in the same application: the
 * token check, the throttle and the audit of refusals run in a request filter that the feature
 * puts on these methods (a filter is handed the request on every Jakarta REST runtime; a resource
 * method is not), and the feature finds the peer address. Without one every call is answered 503
 * and the cause logged. On Jersey:
 *
 * <pre>{@code
 * resourceConfig.register(QuotaAdminResource.builder(quotaService, System.getenv("QUOTA_ADMIN_TOKEN")).build());
 * }</pre>
 *
 * On RESTEasy: {@code deployment.getResources().add(QuotaAdminResource.builder(...).build())}.
 * Mounted at {@code /admin}.
 *
 * <p>A runtime that finds this class by scanning the application's jars and constructs it itself
 * (RESTEasy in WildFly scans {@code WEB-INF/lib} for {@code @Path} classes)
 * gets an admin API that is off: every call is answered 404 ({@link #QuotaAdminResource(Configuration)}).
 */
@Path("/admin")
@ResourceChecks.Checked
public final class QuotaAdminResource {

    /**
     * What {@code DELETE /admin/customers/{id}/leases} must carry as {@code ?confirm=}: that the
     * operator knows more than the in-flight limit may run until the running requests end.
     */
    public static final String CONFIRM_RELEASE = "may-exceed-in-flight-limit";

    /** Wrong tokens from one address before it is throttled, by default: 5. */
    public static final int DEFAULT_MAX_FAILURES = 5;
    /** How often a throttled address gets one more attempt, by default: every 10 seconds. */
    public static final Duration DEFAULT_RETRY_EVERY = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(QuotaAdminResource.class);
    private static final String JSON = "application/json";

    static {
        // the quota filter hands the requests of each method here to its token check instead of a quota
        ResourceChecks.register(QuotaAdminResource.class, method -> new AdminFilter(action(method)));
    }

    /** Null for an admin API that is off. */
    private final @Nullable On on;

    QuotaAdminResource(QuotaAdminResourceBuilder builder) {
        AdminAudit audit = new AdminAudit(builder.clock);
        this.on = new On(builder.service, audit, new AdminGuard(builder.tokenDigest, builder.clientAddress,
                new AdminThrottle(builder.maxFailures, builder.retryEvery, builder.clock, AdminThrottle.MAX_ADDRESSES),
                audit));
    }

    /** What an admin API that is on works with. */
    private record On(QuotaService service, AdminAudit audit, AdminGuard guard) {
    }

    /**
     * An admin API that is off: every call is answered 404, as for a path no resource has. For
     * runtimes that construct each {@code @Path} class they find in the application's jars
     * (RESTEasy in WildFly), which would otherwise refuse to deploy the
     * application for want of a public constructor, even with no admin API wanted. The admin API
     * itself is {@link #builder}'s.
     *
     * <p>Why a {@link Context} parameter, unused, rather than none: a runtime takes a public
     * constructor whose parameters are all {@code @Context}, and CDI takes no such constructor for a
     * bean, so a CDI producer of this type (as {@code quota-cdi} has) stays the only bean of it and
     * is what the runtime gets from CDI.
     *
     * @param configuration the runtime's configuration, not used
     */
    public QuotaAdminResource(@Context @Nullable Configuration configuration) {
        this.on = null;
    }

    /**
     * Settings for an admin API over {@code service}, open to requests that carry {@code token}.
     *
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if the token is not strong enough ({@link AdminTokens#requireStrong});
     *                                  the message never contains the token
     */
    public static QuotaAdminResourceBuilder builder(QuotaService service, String token) {
        return new QuotaAdminResourceBuilder(service, token);
    }

    /** What checks the calls of this resource: {@link AdminFilter} asks it; null when the admin API is off. */
    @Nullable AdminGuard guard() {
        On on = this.on;
        return on == null ? null : on.guard();
    }

    /** The answer to every call of an admin API that is off. */
    static Response off() {
        return Response.status(Response.Status.NOT_FOUND).build();
    }

    /** The audit's name for the calls {@code method} of this class answers. */
    static String action(Method method) {
        return switch (method.getName()) {
            case "customer" -> "standing";
            case "reset" -> "reset-buckets";
            case "releaseLeases" -> "release-leases";
            case "topCustomers" -> "top-customers";
            default -> method.getName();
        };
    }

    /**
     * The customer's standing in its plan limits and every rule's per-customer limits.
     *
     * @param security the runtime's, once the admin filter let the call through
     */
    @GET
    @Path("customers/{id}")
    public Response customer(@PathParam("id") String id, @Context SecurityContext security) {
        On on = this.on;
        if (on == null) {
            return off();
        }
        Target target = target(on, "standing", id, security);
        if (target.answer() != null) {
            return target.answer();
        }
        Customer customer = Objects.requireNonNull(target.customer(), "a target without an answer names a customer");
        try {
            return json(Response.ok(), AdminDocuments.standing(customer, target.config().version(),
                    on.service().admin().standing(customer), on.service().admin().inFlight(customer)));
        } catch (QuotaStoreException e) {
            log.warn("admin standing of customer {}: store unavailable", AdminAudit.value(customer.id()), e);
            return ProblemResponses.unavailable(Duration.ofSeconds(1), null);
        }
    }

    /**
     * Deletes the customer's plan and rule buckets: the next request starts full.
     *
     * @param security the runtime's, once the admin filter let the call through
     */
    @DELETE
    @Path("customers/{id}/buckets")
    public Response reset(@PathParam("id") String id, @Context SecurityContext security) {
        On on = this.on;
        if (on == null) {
            return off();
        }
        Target target = target(on, "reset-buckets", id, security);
        if (target.answer() != null) {
            return target.answer();
        }
        Customer customer = Objects.requireNonNull(target.customer(), "a target without an answer names a customer");
        String who = "action=reset-buckets customer=" + AdminAudit.value(customer.id()) + " plan="
                + AdminAudit.value(customer.plan()) + " configVersion=" + target.config().version();
        try {
            on.service().admin().reset(customer);
        } catch (QuotaStoreException e) {
            on.audit().authorized(who + " outcome=store-unavailable client=" + AdminAudit.value(target.client()), true);
            return ProblemResponses.unavailable(Duration.ofSeconds(1), null);
        }
        on.audit().authorized(who + " outcome=ok client=" + AdminAudit.value(target.client()), false);
        return Response.noContent().build();
    }

    /**
     * Frees every in-flight lease of the customer ({@link dev.quota.core.QuotaAdmin#releaseLeases}):
     * the requests still running no longer count, so until they end more than the in-flight limit
     * may run. That is why the call must say so: {@code ?confirm=}{@value #CONFIRM_RELEASE}, else
     * it is answered 400 and nothing is freed. Answered 200 with the limits as they stood just
     * before, and audited ({@code action=release-leases}, with how many were held).
     *
     * @param confirm  must be {@value #CONFIRM_RELEASE}
     * @param security the runtime's, once the admin filter let the call through
     */
    @DELETE
    @Path("customers/{id}/leases")
    public Response releaseLeases(@PathParam("id") String id, @QueryParam("confirm") @Nullable String confirm,
                                  @Context SecurityContext security) {
        On on = this.on;
        if (on == null) {
            return off();
        }
        Target target = target(on, "release-leases", id, security);
        if (target.answer() != null) {
            return target.answer();
        }
        Customer customer = Objects.requireNonNull(target.customer(), "a target without an answer names a customer");
        String who = "action=release-leases customer=" + AdminAudit.value(customer.id()) + " plan="
                + AdminAudit.value(customer.plan()) + " configVersion=" + target.config().version();
        if (!CONFIRM_RELEASE.equals(confirm)) {
            on.audit().authorized(who + " outcome=not-confirmed client=" + AdminAudit.value(target.client()), false);
            return ProblemResponses.withBody(Response.status(400), ProblemResponses.problem("confirmation-required",
                    "Bad Request", 400, "Releasing leases lets more requests run than the in-flight limit until"
                            + " the running ones end; add ?confirm=" + CONFIRM_RELEASE + " to do it.", null));
        }
        List<InFlightStanding> released;
        try {
            released = on.service().admin().releaseLeases(customer);
        } catch (QuotaStoreException e) {
            on.audit().authorized(who + " outcome=store-unavailable client=" + AdminAudit.value(target.client()), true);
            return ProblemResponses.unavailable(Duration.ofSeconds(1), null);
        }
        StringBuilder held = new StringBuilder();
        for (InFlightStanding standing : released) {
            held.append(held.length() == 0 ? "" : ",").append(standing.policy()).append(':').append(standing.held())
                    .append('/').append(standing.limit());
        }
        on.audit().authorized(who + " released=" + AdminAudit.value(held.length() == 0 ? "none" : held.toString())
                + " outcome=ok client=" + AdminAudit.value(target.client()), false);
        return json(Response.ok(), AdminDocuments.released(customer, released));
    }

    /**
     * The customer a call on {@code id} is about; or the answer: 503 for a call the admin filter
     * did not let through, 404 for an id the customer directory does not know.
     */
    private static Target target(On on, String action, String id, @Nullable SecurityContext security) {
        QuotaConfig config = on.service().config();
        String client = on.guard().admitted(security);
        if (client == null) {
            return new Target("", config, null, on.guard().unchecked(action));
        }
        Customer customer = on.service().admin().customer(id);
        if (customer == null) {
            if (action.equals("reset-buckets") || action.equals("release-leases")) {
                on.audit().authorized("action=" + action + " outcome=unknown-customer configVersion=" + config.version()
                        + " client=" + AdminAudit.value(client), false);
            }
            return new Target(client, config, null, unknownCustomer(config));
        }
        return new Target(client, config, customer, null);
    }

    /** A call's client, the config it sees, and the customer it is about or the answer it gets instead. */
    private record Target(String client, QuotaConfig config, @Nullable Customer customer, @Nullable Response answer) {
    }

    /**
     * The active config, summarised without API key hashes, and the store's health
     * ({@link dev.quota.core.QuotaAdmin#store()}).
     *
     * @param security the runtime's, once the admin filter let the call through
     */
    @GET
    @Path("config")
    public Response config(@Context SecurityContext security) {
        return document(security, "config",
                service -> AdminDocuments.config(service.config(), service.tokenLeasing(),
                        service.admin().store()));
    }

    /**
     * Who is being limited, as this instance counted it: at most 10 customers by refusals and 10 by
     * plan tokens spent, over the current minute and the 5 before it. In memory; asks nothing of
     * the store, so it answers during a store outage too.
     *
     * @param security the runtime's, once the admin filter let the call through
     */
    @GET
    @Path("top-customers")
    public Response topCustomers(@Context SecurityContext security) {
        return document(security, "top-customers", service -> AdminDocuments.topCustomers(service.admin().topCustomers()));
    }

    /**
     * The answer to a call about no customer that needs no store: 404 when the admin API is off,
     * the guard's answer for a call the admin filter did not let through, else the document, 200.
     */
    private Response document(@Nullable SecurityContext security, String action, Function<QuotaService, String> body) {
        On on = this.on;
        if (on == null) {
            return off();
        }
        if (on.guard().admitted(security) == null) {
            return on.guard().unchecked(action);
        }
        return json(Response.ok(), body.apply(on.service()));
    }

    private static Response unknownCustomer(QuotaConfig config) {
        // the id is not echoed: it came from the request
        return ProblemResponses.withBody(Response.status(404), ProblemResponses.problem("unknown-customer",
                "Not Found", 404, "No customer with this id in config version " + config.version() + ".", null));
    }

    private static Response json(Response.ResponseBuilder response, String body) {
        return response.type(JSON).entity(body.getBytes(StandardCharsets.UTF_8)).build();
    }
}
