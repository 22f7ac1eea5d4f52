package dev.quota.jaxrs.admin;

import dev.quota.jaxrs.ClientAddress;
import dev.quota.jaxrs.QuotaFeature;
import dev.quota.jaxrs.internal.JsonWriter;
import dev.quota.jaxrs.internal.ProblemResponses;
import dev.quota.jaxrs.internal.RateLimitHeaders;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Principal;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may use a {@link QuotaAdminResource}, decided before its methods run, in the request filter
 * ({@link AdminFilter}) where every runtime hands over the {@link ContainerRequestContext}: the
 * bearer token, compared in constant time; wrong tokens throttled per client address
 * ({@link AdminThrottle}); refusals written to the audit log ({@link AdminAudit}). A refused call
 * is answered here, 401 or 429. An admitted call goes on with a security context whose principal
 * ({@value #PRINCIPAL}) names the client address, which the resource method reads for its audit
 * line through the {@code SecurityContext} it is injected with, portably.
 */
final class AdminGuard {

    /** The name of an admitted caller's principal. */
    static final String PRINCIPAL = "quota-admin";

    // under the public class's name, which is what an operator looks for in the log configuration
    private static final Logger log = LoggerFactory.getLogger(QuotaAdminResource.class);
    private static final String BEARER = "bearer ";
    private static final String UNKNOWN = "unknown";

    /** SHA-256 of the token: equal lengths for {@link MessageDigest#isEqual}, and no token in a heap dump. */
    private final byte[] tokenDigest;
    private final ClientAddress clientAddress;
    private final AdminThrottle throttle;
    private final AdminAudit audit;
    private final AtomicBoolean uncheckedLogged = new AtomicBoolean();

    AdminGuard(byte[] tokenDigest, ClientAddress clientAddress, AdminThrottle throttle, AdminAudit audit) {
        this.tokenDigest = tokenDigest;
        this.clientAddress = clientAddress;
        this.throttle = throttle;
        this.audit = audit;
    }

    /**
     * Aborts {@code request} with 429 while its address is throttled, whatever token it sent, so a
     * blocked guesser learns nothing; else with 401 for a missing or wrong token, which takes one
     * of the address's attempts; else lets it through as {@value #PRINCIPAL}.
     */
    void admit(String action, ContainerRequestContext request) {
        String client = client(request);
        audit.summaryIfDue();
        boolean authorized = authorized(request.getHeaderString(HttpHeaders.AUTHORIZATION));
        Duration blocked = authorized ? throttle.blockedFor(client) : throttle.failed(client);
        if (!blocked.isZero()) {
            audit.throttled(action, client, blocked);
            request.abortWith(throttled(blocked));
        } else if (!authorized) {
            audit.denied(action, client);
            request.abortWith(denied());
        } else {
            request.setSecurityContext(new Admitted(new Operator(client, this), request.getSecurityContext()));
        }
    }

    /**
     * The client address of a call this guard admitted, from the security context the resource
     * method was injected with; null when no {@link AdminFilter} let it through.
     */
    @Nullable String admitted(@Nullable SecurityContext security) {
        return security != null && security.getUserPrincipal() instanceof Operator operator && operator.guard() == this
                ? operator.client() : null;
    }

    /**
     * 503 for a call that reached the resource without being let through by the filter: no
     * {@link QuotaFeature} in the application, or a later request filter replaced the security
     * context. Logged once, with the fix; the client learns nothing.
     */
    Response unchecked(String action) {
        if (uncheckedLogged.compareAndSet(false, true)) {
            log.error("admin API: {} was called without its token check, so it is answered 503 (logged once): the"
                    + " check is a request filter that QuotaFeature puts on the admin methods, which hands the call on"
                    + " in the request's SecurityContext; register a QuotaFeature in the same application as the"
                    + " QuotaAdminResource, and let no request filter after it (priority above {}) replace the"
                    + " security context of admin calls", action, AdminFilter.PRIORITY);
        }
        return checkFailed();
    }

    private String client(ContainerRequestContext request) {
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

    static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java runtime", e);
        }
    }

    private static Response denied() {
        JsonWriter body = ProblemResponses.problem("admin-token-required", "Unauthorized", 401,
                "Send the admin token as Authorization: Bearer <token>.", null);
        return ProblemResponses.withBody(Response.status(401)
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"quota-admin\""), body);
    }

    private static Response throttled(Duration blocked) {
        long seconds = RateLimitHeaders.retryAfterSeconds(blocked);
        JsonWriter body = ProblemResponses.problem("too-many-failed-admin-tokens", "Too Many Requests", 429,
                "Too many wrong admin tokens from this address; retry in " + seconds + " s.", null)
                .member("retryAfterSeconds", seconds);
        return ProblemResponses.withBody(Response.status(ProblemResponses.TOO_MANY_REQUESTS).header(ProblemResponses.RETRY_AFTER,
                Long.toString(seconds)), body);
    }

    /** 503: the token could not be checked; the cause is in the server log only. */
    static Response checkFailed() {
        return ProblemResponses.withBody(Response.status(503), ProblemResponses.problem("admin-check-failed",
                "Service Unavailable", 503, "The admin token could not be checked.", null));
    }

    /**
     * The principal of an admitted call: the operator, from {@code client}, let in by {@code guard}
     * (a client cannot make one: it is an object, not a header).
     */
    private record Operator(String client, AdminGuard guard) implements Principal {
        @Override
        public String getName() {
            return PRINCIPAL;
        }

        @Override
        public String toString() {
            return PRINCIPAL + "@" + client;
        }
    }

    /** The request's security context once the token is checked: the operator, over the runtime's own. */
    private record Admitted(Operator operator, @Nullable SecurityContext runtime) implements SecurityContext {
        @Override
        public Principal getUserPrincipal() {
            return operator;
        }

        @Override
        public boolean isUserInRole(String role) {
            return false;
        }

        @Override
        public boolean isSecure() {
            return runtime != null && runtime.isSecure();
        }

        @Override
        public String getAuthenticationScheme() {
            return "Bearer";
        }
    }
}
