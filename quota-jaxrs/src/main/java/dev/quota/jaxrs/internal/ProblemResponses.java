package dev.quota.jaxrs.internal;

import dev.quota.core.Limit;
import dev.quota.core.LimitStatus;
import dev.quota.core.QuotaDecision;
import dev.quota.core.Refill;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Every error response of this module: RFC 9457 problem details as {@code application/problem+json}.
 * Bodies never echo what the client sent, apart from the request path as {@code instance}
 * (without the query, which may carry secrets).
 */
public final class ProblemResponses {

    static final String MEDIA_TYPE = "application/problem+json";
    public static final String RETRY_AFTER = "Retry-After";
    static final String TYPE_PREFIX = "urn:quota:problem:";
    /** On a 429 of an in-flight limit: how many requests of the caller may run at once there. */
    public static final String IN_FLIGHT_LIMIT = "Quota-In-Flight-Limit";
    /**
     * 429 with its reason phrase spelled out, so that the status line reads {@code 429 Too Many
     * Requests} on every runtime: a bare {@code Response.status(429)} left Payara's writing
     * {@code 429 CUSTOM}.
     */
    public static final Response.StatusType TOO_MANY_REQUESTS = new Status(429, "Too Many Requests");
    /**
     * 422, which {@link Response.Status} of Jakarta REST 3.1 lacks, with RFC 9110's reason phrase;
     * without one, runtimes write {@code 422 CUSTOM} (Payara), {@code 422 } (Grizzly) or their own.
     */
    public static final Response.StatusType UNPROCESSABLE_CONTENT = new Status(422, "Unprocessable Content");

    private ProblemResponses() {
    }

    /** 429 for a rejection, 422 for a request that can never fit, 503 for an unavailable store. */
    public static Response forDecision(QuotaDecision decision, @Nullable String instance) {
        return switch (decision.outcome()) {
            case UNAVAILABLE -> unavailable(decision.retryAfter(), instance);
            case EXCEEDS_LIMIT -> exceedsLimit(decision, instance);
            default -> tooManyRequests(decision, instance);
        };
    }

    /**
     * The status and {@code Retry-After} of {@link #forDecision}, without a body: the response a
     * {@link dev.quota.jaxrs.QuotaExceededException} carries, so that runtimes hand it to the
     * feature's exception mapper (Jersey uses an exception's response as it is when it has an entity).
     */
    public static Response withoutBody(QuotaDecision decision) {
        return switch (decision.outcome()) {
            case UNAVAILABLE -> Response.status(503).header(RETRY_AFTER, retryAfter(decision.retryAfter())).build();
            case EXCEEDS_LIMIT -> Response.status(UNPROCESSABLE_CONTENT).build();
            default -> inFlight(decision) ? Response.status(TOO_MANY_REQUESTS).build()
                    : Response.status(TOO_MANY_REQUESTS).header(RETRY_AFTER, retryAfter(decision.retryAfter())).build();
        };
    }

    /**
     * 429 naming the violated limit, with {@code Retry-After} and, for the caller's own request
     * limits, the {@code RateLimit} headers. Amount limits add {@code resetSeconds}; a limit every
     * customer shares is named without its remaining tokens (they tell of other customers).
     */
    static Response tooManyRequests(QuotaDecision decision, @Nullable String instance) {
        if (inFlight(decision)) {
            return tooManyInFlight(decision, instance);
        }
        LimitStatus violated = Objects.requireNonNull(decision.violated(), "a rejection names its limit");
        long retryAfter = RateLimitHeaders.retryAfterSeconds(decision.retryAfter());
        JsonWriter body = problem("quota-exceeded", "Too Many Requests", 429, detail(violated, retryAfter), instance)
                .member("limit", violated.policy());
        if (violated.role() != LimitStatus.Role.SHARED) {
            body.member("remaining", violated.remaining());
        }
        body.member("retryAfterSeconds", retryAfter);
        if (violated.role() == LimitStatus.Role.AMOUNT) {
            body.member("resetSeconds", violated.resetSeconds());
        }
        Response.ResponseBuilder response = Response.status(TOO_MANY_REQUESTS).header(RETRY_AFTER, Long.toString(retryAfter));
        String policy = RateLimitHeaders.policy(decision.limits());
        if (policy != null) {
            response.header(RateLimitHeaders.POLICY, policy)
                    .header(RateLimitHeaders.RATE_LIMIT, RateLimitHeaders.rateLimit(decision.limits()));
        }
        return withBody(response, body);
    }

    /**
     * 429 for a request refused by an in-flight limit: as many of the caller's requests are running
     * there as may run at once. No {@code Retry-After} (when one of them ends is nobody's guess) and
     * no {@code RateLimit} headers (their tokens left would contradict the refusal); instead
     * {@value #IN_FLIGHT_LIMIT} with the limit.
     */
    static Response tooManyInFlight(QuotaDecision decision, @Nullable String instance) {
        LimitStatus violated = Objects.requireNonNull(decision.violated(), "a rejection names its limit");
        long limit = violated.limit().capacity();
        JsonWriter body = problem("too-many-in-flight", "Too Many Requests", 429, "Limit " + violated.policy()
                + " allows " + limit + " requests running at once, and " + limit
                + " are running; retry when one of them has finished.", instance)
                .member("limit", violated.policy())
                .member("inFlightLimit", limit);
        return withBody(Response.status(TOO_MANY_REQUESTS).header(IN_FLIGHT_LIMIT, Long.toString(limit)), body);
    }

    /** Whether {@code decision} is a refusal by an in-flight limit. */
    private static boolean inFlight(QuotaDecision decision) {
        LimitStatus violated = decision.violated();
        return decision.outcome() == QuotaDecision.Outcome.REJECTED && violated != null
                && violated.role() == LimitStatus.Role.IN_FLIGHT;
    }

    /**
     * 422 for a request that needs more than a limit can ever hold (an amount over the whole daily
     * limit): retrying does not help, so there is no {@code Retry-After}.
     */
    static Response exceedsLimit(QuotaDecision decision, @Nullable String instance) {
        LimitStatus violated = Objects.requireNonNull(decision.violated(), "a refusal names its limit");
        Limit limit = violated.limit();
        String detail = "This request needs more of limit " + violated.policy() + " than it ever holds ("
                + limit.capacity() + " per " + window(limit) + "); it cannot pass as it is.";
        JsonWriter body = problem("exceeds-limit", "Unprocessable Content", 422, detail, instance)
                .member("limit", violated.policy())
                .member("capacity", limit.capacity());
        return withBody(Response.status(UNPROCESSABLE_CONTENT), body);
    }

    /**
     * 429 for a client address that guessed too many API keys ({@code identity.failedKeys}, default 10
     * per minute), with {@code Retry-After}. No {@code RateLimit} headers: the limit is the address's,
     * not a customer's, and it is not advertised to a guesser.
     */
    public static Response tooManyFailedKeys(QuotaDecision decision) {
        long retryAfter = RateLimitHeaders.retryAfterSeconds(decision.retryAfter());
        JsonWriter body = problem("too-many-failed-keys", "Too Many Requests", 429,
                "Too many unknown API keys from this address; retry in " + retryAfter + " s.", null)
                .member("retryAfterSeconds", retryAfter);
        return withBody(Response.status(TOO_MANY_REQUESTS).header(RETRY_AFTER, Long.toString(retryAfter)), body);
    }

    /** 503: the store could not answer and the failure policy is closed. */
    public static Response unavailable(Duration retryAfter, @Nullable String instance) {
        long seconds = RateLimitHeaders.retryAfterSeconds(retryAfter);
        JsonWriter body = problem("quota-unavailable", "Service Unavailable", 503,
                "Quotas cannot be checked right now; retry in " + seconds + " s.", instance)
                .member("retryAfterSeconds", seconds);
        return withBody(Response.status(503).header(RETRY_AFTER, Long.toString(seconds)), body);
    }

    /** 503: resolving the caller or deciding failed unexpectedly; the cause is in the server log only. */
    public static Response checkFailed(@Nullable String instance) {
        return withBody(Response.status(503), problem("quota-check-failed", "Service Unavailable", 503,
                "The quota check failed.", instance));
    }

    /** 400 for an amount the limits cannot take (negative, zero, missing currency), before anything is spent. */
    public static Response invalidAmount(String reason, @Nullable String instance) {
        return withBody(Response.status(400), problem("invalid-amount", "Bad Request", 400,
                "The request's amount cannot be checked: " + reason + ".", instance));
    }

    /** 400 for a body that could not be read: cut short, or the connection closed halfway through it. */
    public static Response unreadableBody(@Nullable String instance) {
        return withBody(Response.status(400), problem("unreadable-body", "Bad Request", 400,
                "The request's body could not be read: it ended before its declared length or was malformed.",
                instance));
    }

    /** 408 for a body that stalled or arrived slower than the server accepts. */
    public static Response bodyTimeout(@Nullable String instance) {
        return withBody(Response.status(408), problem("body-timeout", "Request Timeout", 408,
                "The request's body did not arrive in time.", instance));
    }

    /**
     * 429 for a request that arrived while its customer or its address already had {@code max}
     * bodies on their way to this instance; {@code Retry-After: 1}, since a body that comes at the
     * server's minimum rate frees its place within seconds.
     */
    public static Response tooManyPendingBodies(int max, @Nullable String instance) {
        return withBody(Response.status(TOO_MANY_REQUESTS).header(RETRY_AFTER, "1"),
                problem("too-many-pending-bodies", "Too Many Requests", 429, "More than " + max
                        + " requests of this caller are waiting for their body here; send the bodies you started.",
                        instance));
    }

    /** 401 for a key (or principal) that maps to no customer. The key is never echoed. */
    public static Response unknownKey(String header) {
        return unauthorized(header, "unknown-api-key", "The API key is not recognised.");
    }

    /** 401 for a request without a key where anonymous callers are rejected. */
    public static Response missingKey(String header) {
        return unauthorized(header, "missing-api-key", "An API key is required in header " + header + ".");
    }

    /** 400 for a key header sent more than once. */
    public static Response badKey(String header) {
        return withBody(Response.status(400), problem("bad-api-key", "Bad Request", 400,
                "Send header " + header + " exactly once.", null));
    }

    /** A problem body's standard members; the caller may add its own and must then pass it to {@link #withBody}. */
    public static JsonWriter problem(String type, String title, int status, String detail, @Nullable String instance) {
        JsonWriter body = new JsonWriter().beginObject()
                .member("type", TYPE_PREFIX + type)
                .member("title", title)
                .member("status", status)
                .member("detail", detail);
        if (instance != null) {
            body.member("instance", instance);
        }
        return body;
    }

    /** The response with {@code body} (ended here) as {@code application/problem+json}, UTF-8. */
    public static Response withBody(Response.ResponseBuilder response, JsonWriter body) {
        // bytes, so the charset is UTF-8 whatever the runtime's default for this media type
        return response.type(MEDIA_TYPE)
                .entity(body.endObject().toString().getBytes(StandardCharsets.UTF_8))
                .build();
    }

    private static Response unauthorized(String header, String type, String detail) {
        StringBuilder challenge = new StringBuilder(32).append("ApiKey header=\"");
        for (int i = 0; i < header.length(); i++) {
            char c = header.charAt(i);
            if (c == '"' || c == '\\') {
                challenge.append('\\');
            }
            challenge.append(c);
        }
        challenge.append('"');
        return withBody(Response.status(401).header(HttpHeaders.WWW_AUTHENTICATE, challenge.toString()),
                problem(type, "Unauthorized", 401, detail, null));
    }

    /** "Limit free-burst is exhausted (20 per 2 s); retry in 1 s." */
    private static String detail(LimitStatus violated, long retryAfter) {
        StringBuilder out = new StringBuilder(96).append("Limit ").append(violated.policy());
        if (violated.role() == LimitStatus.Role.SHARED) {
            out.append(", shared by every customer of this endpoint, is exhausted (");
        } else if (violated.remaining() == 0) {
            out.append(" is exhausted (");
        } else {
            out.append(" has ").append(violated.remaining()).append(" left, too few for this request (");
        }
        out.append(violated.limit().capacity()).append(" per ").append(window(violated.limit()));
        return out.append("); retry in ").append(retryAfter).append(" s.").toString();
    }

    /** {@code 2 s}, {@code calendar day}. */
    private static String window(Limit limit) {
        if (limit.refill() instanceof Refill.Calendar calendar) {
            ChronoUnit unit = calendar.unit();
            return "calendar " + (unit == ChronoUnit.HOURS ? "hour" : unit == ChronoUnit.DAYS ? "day"
                    : unit == ChronoUnit.WEEKS ? "week" : "month");
        }
        return RateLimitHeaders.windowSeconds(limit) + " s";
    }

    private static String retryAfter(Duration retryAfter) {
        return Long.toString(RateLimitHeaders.retryAfterSeconds(retryAfter));
    }

    /** A status with the reason phrase the runtime is to write. */
    private record Status(int code, String reason) implements Response.StatusType {
        @Override
        public int getStatusCode() {
            return code;
        }

        @Override
        public Response.Status.Family getFamily() {
            return Response.Status.Family.familyOf(code);
        }

        @Override
        public String getReasonPhrase() {
            return reason;
        }
    }
}
