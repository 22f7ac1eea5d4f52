package dev.quota.jaxrs;

import dev.quota.core.Customer;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.config.ApiKeys;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's view of the limiter, protected by a bearer token:
 * <ul>
 *   <li>{@code GET /admin/customers/{id}}: the configured customer's standing in every limit,
 *       without taking anything; 404 for an id the config does not know;
 *   <li>{@code DELETE /admin/customers/{id}/buckets}: empties nothing, refills everything: the
 *       customer's plan and rule buckets are deleted, answered 204 and logged to {@code dev.quota.audit};
 *   <li>{@code GET /admin/config}: the active config's version, plans, rules and limits; customers
 *       and keys only counted, never listed.
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
 * connection's peer ({@link ClientAddress#peer()}, found where a {@link QuotaFeature} is registered
 * in the same application) unless {@link QuotaAdminResourceBuilder#clientAddress} names another;
 * where none is found every caller is {@code unknown} and all share one allowance, and then a
 * stranger's wrong tokens lock an operator out for as long as the stranger keeps sending them.
 *
 * <pre>{@code
 * resourceConfig.register(QuotaAdminResource.builder(quotaService, System.getenv("QUOTA_ADMIN_TOKEN")).build());
 * }</pre>
 *
 * Mounted at {@code /admin}; to mount it elsewhere, return it from a sub-resource locator. The
 * address is read through the {@link ContainerRequestContext} the runtime injects into the
 * resource methods (Jersey does).
 */
@Path("/admin")
public final class QuotaAdminResource {

    /** Wrong tokens from one address before it is throttled, by default: 5. */
    public static final int DEFAULT_MAX_FAILURES = 5;
    /** How often a throttled address gets one more attempt, by default: every 10 seconds. */
    public static final Duration DEFAULT_RETRY_EVERY = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(QuotaAdminResource.class);
    private static final String JSON = "application/json";
    private static final String BEARER = "bearer ";
    private static final String UNKNOWN = "unknown";

    private final QuotaService service;
    /** SHA-256 of the token: equal lengths for {@link MessageDigest#isEqual}, and no token in a heap dump. */
    private final byte[] tokenDigest;
    private final ClientAddress clientAddress;
    private final AdminThrottle throttle;
    private final AdminAudit audit;

    QuotaAdminResource(QuotaAdminResourceBuilder builder) {
        this.service = builder.service;
        this.tokenDigest = builder.tokenDigest;
        this.clientAddress = builder.clientAddress;
        this.throttle = new AdminThrottle(builder.maxFailures, builder.retryEvery, builder.clock,
                AdminThrottle.MAX_ADDRESSES);
        this.audit = new AdminAudit(builder.clock);
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

    /** The customer's standing in its plan limits and every rule's per-customer limits. */
    @GET
    @Path("customers/{id}")
    public Response customer(@PathParam("id") String id, @HeaderParam(HttpHeaders.AUTHORIZATION) @Nullable String auth,
                             @Context @Nullable ContainerRequestContext request) {
        Target target = target("standing", id, auth, request);
        if (target.answer() != null) {
            return target.answer();
        }
        Customer customer = target.customer();
        try {
            return json(Response.ok(), AdminDocuments.standing(customer, target.config().version(),
                    service.admin().standing(customer)));
        } catch (QuotaStoreException e) {
            log.warn("admin standing of customer {}: store unavailable", AdminAudit.value(customer.id()), e);
            return ProblemResponses.unavailable(Duration.ofSeconds(1), null);
        }
    }

    /** Deletes the customer's plan and rule buckets: the next request starts full. */
    @DELETE
    @Path("customers/{id}/buckets")
    public Response reset(@PathParam("id") String id, @HeaderParam(HttpHeaders.AUTHORIZATION) @Nullable String auth,
                          @Context @Nullable ContainerRequestContext request) {
        Target target = target("reset-buckets", id, auth, request);
        if (target.answer() != null) {
            return target.answer();
        }
        Customer customer = target.customer();
        String who = "action=reset-buckets customer=" + AdminAudit.value(customer.id()) + " plan="
                + AdminAudit.value(customer.plan()) + " configVersion=" + target.config().version();
        try {
            service.admin().reset(customer);
        } catch (QuotaStoreException e) {
            audit.authorized(who + " outcome=store-unavailable client=" + AdminAudit.value(target.client()), true);
            return ProblemResponses.unavailable(Duration.ofSeconds(1), null);
        }
        audit.authorized(who + " outcome=ok client=" + AdminAudit.value(target.client()), false);
        return Response.noContent().build();
    }

    /**
     * The customer a call on {@code id} is about, once the caller is let through; or the answer:
     * the refusal ({@link #refuse}), or 404 for an id the customer directory does not know.
     */
    private Target target(String action, String id, @Nullable String auth,
                          @Nullable ContainerRequestContext request) {
        String client = client(request);
        QuotaConfig config = service.config();
        Response refused = refuse(action, auth, client);
        if (refused != null) {
            return new Target(client, config, null, refused);
        }
        Customer customer = service.admin().customer(id);
        if (customer == null) {
            if (action.equals("reset-buckets")) {
                audit.authorized("action=reset-buckets outcome=unknown-customer configVersion=" + config.version()
                        + " client=" + AdminAudit.value(client), false);
            }
            return new Target(client, config, null, unknownCustomer(config));
        }
        return new Target(client, config, customer, null);
    }

    /** A call's client, the config it sees, and the customer it is about or the answer it gets instead. */
    private record Target(String client, QuotaConfig config, @Nullable Customer customer, @Nullable Response answer) {
    }

    /** The active config, summarised without API key hashes. */
    @GET
    @Path("config")
    public Response config(@HeaderParam(HttpHeaders.AUTHORIZATION) @Nullable String auth,
                           @Context @Nullable ContainerRequestContext request) {
        String client = client(request);
        Response refused = refuse("config", auth, client);
        if (refused != null) {
            return refused;
        }
        return json(Response.ok(), AdminDocuments.config(service.config()));
    }

    /**
     * Null when the call may go on; else the answer: 429 while the address is throttled, whatever
     * token it sent, so a blocked guesser learns nothing; else 401 for a missing or wrong token,
     * which takes one of the address's attempts.
     */
    private @Nullable Response refuse(String action, @Nullable String auth, String client) {
        audit.summaryIfDue();
        boolean authorized = authorized(auth);
        Duration blocked = authorized ? throttle.blockedFor(client) : throttle.failed(client);
        if (!blocked.isZero()) {
            audit.throttled(action, client, blocked);
            return throttled(blocked);
        }
        if (authorized) {
            return null;
        }
        audit.denied(action, client);
        return denied();
    }

    private String client(@Nullable ContainerRequestContext request) {
        if (request == null) {
            return UNKNOWN;
        }
        try {
            String address = clientAddress.of(request);
            return address == null || address.isEmpty() ? UNKNOWN : address;
        } catch (RuntimeException e) {
            log.warn("admin API: the client address could not be read, counting the call as {}: {}", UNKNOWN,
                    e.toString());
            return UNKNOWN;
        }
    }

    /** {@code Bearer <token>}, scheme case-insensitive, compared as SHA-256 digests in constant time. */
    private boolean authorized(@Nullable String header) {
        if (header == null || header.length() <= BEARER.length()
                || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return false;
        }
        return MessageDigest.isEqual(tokenDigest, sha256(header.substring(BEARER.length()).strip()));
    }

    private static Response denied() {
        String body = new JsonWriter().beginObject()
                .member("type", "urn:quota:problem:admin-token-required")
                .member("title", "Unauthorized")
                .member("status", 401)
                .member("detail", "Send the admin token as Authorization: Bearer <token>.")
                .endObject().toString();
        return problem(Response.status(401).header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"quota-admin\""),
                body);
    }

    private static Response throttled(Duration blocked) {
        long seconds = RateLimitHeaders.retryAfterSeconds(blocked);
        String body = new JsonWriter().beginObject()
                .member("type", "urn:quota:problem:too-many-failed-admin-tokens")
                .member("title", "Too Many Requests")
                .member("status", 429)
                .member("detail", "Too many wrong admin tokens from this address; retry in " + seconds + " s.")
                .member("retryAfterSeconds", seconds)
                .endObject().toString();
        return problem(Response.status(429).header(ProblemResponses.RETRY_AFTER, Long.toString(seconds)), body);
    }

    private static Response unknownCustomer(QuotaConfig config) {
        // the id is not echoed: it came from the request
        String body = new JsonWriter().beginObject()
                .member("type", "urn:quota:problem:unknown-customer")
                .member("title", "Not Found")
                .member("status", 404)
                .member("detail", "No customer with this id in config version " + config.version() + ".")
                .endObject().toString();
        return problem(Response.status(404), body);
    }

    private static Response problem(Response.ResponseBuilder response, String body) {
        return response.type(ProblemResponses.MEDIA_TYPE).entity(body.getBytes(StandardCharsets.UTF_8)).build();
    }

    private static Response json(Response.ResponseBuilder response, String body) {
        return response.type(JSON).entity(body.getBytes(StandardCharsets.UTF_8)).build();
    }

    static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java runtime", e);
        }
    }
}
