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
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Locale;
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
 * wrong token is answered 401. A store failure is answered 503. The admin calls are not counted
 * against any quota.
 *
 * <pre>{@code
 * resourceConfig.register(new QuotaAdminResource(quotaService, System.getenv("QUOTA_ADMIN_TOKEN")));
 * }</pre>
 *
 * Mounted at {@code /admin}; to mount it elsewhere, return it from a sub-resource locator.
 */
@Path("/admin")
public final class QuotaAdminResource {

    /** Tokens shorter than this are refused: they could be guessed. */
    public static final int MIN_TOKEN_LENGTH = 16;

    private static final Logger audit = LoggerFactory.getLogger("dev.quota.audit");
    private static final Logger log = LoggerFactory.getLogger(QuotaAdminResource.class);
    private static final String JSON = "application/json";
    private static final String BEARER = "bearer ";

    private final QuotaService service;
    /** SHA-256 of the token: equal lengths for {@link MessageDigest#isEqual}, and no token in a heap dump. */
    private final byte[] tokenDigest;

    /**
     * An admin API over {@code service}, open to requests that carry {@code token}.
     *
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if the token is shorter than 16 characters or has characters
     *                                  outside visible ASCII (the length is echoed, never the token)
     */
    public QuotaAdminResource(QuotaService service, String token) {
        this.service = Objects.requireNonNull(service, "service");
        Objects.requireNonNull(token, "token");
        if (token.length() < MIN_TOKEN_LENGTH || !ApiKeys.wellFormed(token)) {
            throw new IllegalArgumentException("admin token must be " + MIN_TOKEN_LENGTH
                    + " to 256 visible ASCII characters but was " + token.length() + " characters long");
        }
        this.tokenDigest = sha256(token);
    }

    /** The customer's standing in its plan limits and every rule's per-customer limits. */
    @GET
    @Path("customers/{id}")
    public Response customer(@PathParam("id") String id, @HeaderParam(HttpHeaders.AUTHORIZATION) @Nullable String auth) {
        if (!authorized(auth)) {
            return denied("standing");
        }
        QuotaConfig config = service.config();
        Customer customer = service.admin().customer(id);
        if (customer == null) {
            return unknownCustomer(config);
        }
        try {
            return json(Response.ok(), AdminDocuments.standing(customer, config.version(), service.admin().standing(customer)));
        } catch (QuotaStoreException e) {
            log.warn("admin standing of customer {}: store unavailable", AuditValue.of(customer.id()), e);
            return ProblemResponses.unavailable(Duration.ofSeconds(1), null);
        }
    }

    /** Deletes the customer's plan and rule buckets: the next request starts full. */
    @DELETE
    @Path("customers/{id}/buckets")
    public Response reset(@PathParam("id") String id, @HeaderParam(HttpHeaders.AUTHORIZATION) @Nullable String auth) {
        if (!authorized(auth)) {
            return denied("reset-buckets");
        }
        QuotaConfig config = service.config();
        Customer customer = service.admin().customer(id);
        if (customer == null) {
            audit.info("action=reset-buckets outcome=unknown-customer configVersion={}", config.version());
            return unknownCustomer(config);
        }
        try {
            service.admin().reset(customer);
        } catch (QuotaStoreException e) {
            audit.warn("action=reset-buckets customer={} plan={} configVersion={} outcome=store-unavailable",
                    AuditValue.of(customer.id()), AuditValue.of(customer.plan()), config.version());
            return ProblemResponses.unavailable(Duration.ofSeconds(1), null);
        }
        audit.info("action=reset-buckets customer={} plan={} configVersion={} outcome=ok",
                AuditValue.of(customer.id()), AuditValue.of(customer.plan()), config.version());
        return Response.noContent().build();
    }

    /** The active config, summarised without API key hashes. */
    @GET
    @Path("config")
    public Response config(@HeaderParam(HttpHeaders.AUTHORIZATION) @Nullable String auth) {
        if (!authorized(auth)) {
            return denied("config");
        }
        return json(Response.ok(), AdminDocuments.config(service.config()));
    }

    /** {@code Bearer <token>}, scheme case-insensitive, compared as SHA-256 digests in constant time. */
    private boolean authorized(@Nullable String header) {
        if (header == null || header.length() <= BEARER.length()
                || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return false;
        }
        return MessageDigest.isEqual(tokenDigest, sha256(header.substring(BEARER.length()).strip()));
    }

    private static Response denied(String action) {
        audit.warn("action={} outcome=denied", action);
        String body = new JsonWriter().beginObject()
                .member("type", "urn:quota:problem:admin-token-required")
                .member("title", "Unauthorized")
                .member("status", 401)
                .member("detail", "Send the admin token as Authorization: Bearer <token>.")
                .endObject().toString();
        return problem(Response.status(401).header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"quota-admin\""),
                body);
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

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java runtime", e);
        }
    }

    /** A value for a key=value audit line: as it is when plain, else quoted with escapes. */
    static final class AuditValue {
        private AuditValue() {
        }

        static String of(String value) {
            boolean plain = !value.isEmpty();
            for (int i = 0; i < value.length() && plain; i++) {
                char c = value.charAt(i);
                plain = c > 0x20 && c < 0x7F && c != '"' && c != '=' && c != '\\';
            }
            if (plain) {
                return value;
            }
            StringBuilder out = new StringBuilder(value.length() + 2).append('"');
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c == '"' || c == '\\') {
                    out.append('\\').append(c);
                } else if (c < 0x20 || c == 0x7F) {
                    out.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
                } else {
                    out.append(c);
                }
            }
            return out.append('"').toString();
        }
    }
}
