package dev.quota.jaxrs;

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
 * Every error response of this module: RFC 9457 problem details as {@code application/problem+json},
 * written by hand (no JSON library at run time). Bodies never echo what the client sent, apart
 * from the request path as {@code instance} (without the query, which may carry secrets).
 */
final class Problems {

    static final String MEDIA_TYPE = "application/problem+json";
    static final String RETRY_AFTER = "Retry-After";
    private static final String TYPE_PREFIX = "urn:quota:problem:";

    private Problems() {
    }

    /** 429 for a rejection, 503 for an unavailable store. */
    static Response forDecision(QuotaDecision decision, @Nullable String instance) {
        if (decision.outcome() == QuotaDecision.Outcome.UNAVAILABLE) {
            return unavailable(decision.retryAfter(), instance);
        }
        return tooManyRequests(decision, instance);
    }

    /**
     * The status and {@code Retry-After} of {@link #forDecision}, without a body: the response a
     * {@link QuotaExceededException} carries, so that runtimes hand it to {@link QuotaExceededMapper}
     * (Jersey uses an exception's response as it is when it has an entity).
     */
    static Response withoutBody(QuotaDecision decision) {
        int status = decision.outcome() == QuotaDecision.Outcome.UNAVAILABLE ? 503 : 429;
        return Response.status(status)
                .header(RETRY_AFTER, Long.toString(RateLimitHeaders.retryAfterSeconds(decision.retryAfter())))
                .build();
    }

    /**
     * 429 naming the violated limit, with {@code Retry-After} and, for request limits, the
     * {@code RateLimit} headers of every request limit of the decision. Amount limits add
     * {@code resetSeconds}.
     */
    static Response tooManyRequests(QuotaDecision decision, @Nullable String instance) {
        LimitStatus violated = Objects.requireNonNull(decision.violated(), "a rejection names its limit");
        long retryAfter = RateLimitHeaders.retryAfterSeconds(decision.retryAfter());
        Json body = new Json(320)
                .string("type", TYPE_PREFIX + "quota-exceeded")
                .string("title", "Too Many Requests")
                .number("status", 429)
                .string("detail", detail(violated, retryAfter))
                .optionalString("instance", instance)
                .string("limit", violated.policy())
                .number("remaining", violated.remaining())
                .number("retryAfterSeconds", retryAfter);
        if (!violated.requests()) {
            body.number("resetSeconds", RateLimitHeaders.ceilSeconds(violated.resetAfter()));
        }
        Response.ResponseBuilder response = Response.status(429).header(RETRY_AFTER, Long.toString(retryAfter));
        String policy = RateLimitHeaders.policy(decision.limits());
        if (policy != null) {
            response.header(RateLimitHeaders.POLICY, policy)
                    .header(RateLimitHeaders.RATE_LIMIT, RateLimitHeaders.rateLimit(decision.limits()));
        }
        return withBody(response, body);
    }

    /**
     * 429 for a client address that sent too many unknown API keys ({@code identity.failedKeys},
     * default 10 per minute), with {@code Retry-After}. No {@code RateLimit} headers: the limit is
     * the address's, not a customer's, and it is not advertised to a guesser.
     */
    static Response tooManyFailedKeys(QuotaDecision decision) {
        long retryAfter = RateLimitHeaders.retryAfterSeconds(decision.retryAfter());
        Json body = new Json(224)
                .string("type", TYPE_PREFIX + "too-many-failed-keys")
                .string("title", "Too Many Requests")
                .number("status", 429)
                .string("detail", "Too many unknown API keys from this address; retry in " + retryAfter + " s.")
                .number("retryAfterSeconds", retryAfter);
        return withBody(Response.status(429).header(RETRY_AFTER, Long.toString(retryAfter)), body);
    }

    /** 503: the store could not answer and the failure policy is closed. */
    static Response unavailable(Duration retryAfter, @Nullable String instance) {
        long seconds = RateLimitHeaders.retryAfterSeconds(retryAfter);
        Json body = new Json(256)
                .string("type", TYPE_PREFIX + "quota-unavailable")
                .string("title", "Service Unavailable")
                .number("status", 503)
                .string("detail", "Quotas cannot be checked right now; retry in " + seconds + " s.")
                .optionalString("instance", instance)
                .number("retryAfterSeconds", seconds);
        return withBody(Response.status(503).header(RETRY_AFTER, Long.toString(seconds)), body);
    }

    /** 503: resolving the caller or deciding failed unexpectedly; the cause is in the server log only. */
    static Response checkFailed(@Nullable String instance) {
        Json body = new Json(192)
                .string("type", TYPE_PREFIX + "quota-check-failed")
                .string("title", "Service Unavailable")
                .number("status", 503)
                .string("detail", "The quota check failed.")
                .optionalString("instance", instance);
        return withBody(Response.status(503), body);
    }

    /** 401 for a key (or principal) that maps to no customer. The key is never echoed. */
    static Response unknownKey(String header) {
        return unauthorized(header, "unknown-api-key", "The API key is not recognised.");
    }

    /** 401 for a request without a key where anonymous callers are rejected. */
    static Response missingKey(String header) {
        return unauthorized(header, "missing-api-key", "An API key is required in header " + header + ".");
    }

    /** 400 for a key header sent more than once. */
    static Response badKey(String header) {
        Json body = new Json(160)
                .string("type", TYPE_PREFIX + "bad-api-key")
                .string("title", "Bad Request")
                .number("status", 400)
                .string("detail", "Send header " + header + " exactly once.");
        return withBody(Response.status(400), body);
    }

    private static Response unauthorized(String header, String type, String detail) {
        Json body = new Json(160)
                .string("type", TYPE_PREFIX + type)
                .string("title", "Unauthorized")
                .number("status", 401)
                .string("detail", detail);
        StringBuilder challenge = new StringBuilder(32).append("ApiKey header=\"");
        for (int i = 0; i < header.length(); i++) {
            char c = header.charAt(i);
            if (c == '"' || c == '\\') {
                challenge.append('\\');
            }
            challenge.append(c);
        }
        challenge.append('"');
        return withBody(Response.status(401).header(HttpHeaders.WWW_AUTHENTICATE, challenge.toString()), body);
    }

    /** "Limit free-burst is exhausted (20 per 2 s); retry in 1 s." */
    private static String detail(LimitStatus violated, long retryAfter) {
        Limit limit = violated.limit();
        StringBuilder out = new StringBuilder(96).append("Limit ").append(violated.policy());
        if (violated.remaining() == 0) {
            out.append(" is exhausted (");
        } else {
            out.append(" has ").append(violated.remaining()).append(" left, too few for this request (");
        }
        out.append(limit.capacity()).append(" per ");
        if (limit.refill() instanceof Refill.Calendar calendar) {
            out.append("calendar ").append(unitName(calendar.unit()));
        } else {
            out.append(RateLimitHeaders.windowSeconds(limit)).append(" s");
        }
        return out.append("); retry in ").append(retryAfter).append(" s.").toString();
    }

    private static String unitName(ChronoUnit unit) {
        if (unit == ChronoUnit.HOURS) {
            return "hour";
        }
        if (unit == ChronoUnit.DAYS) {
            return "day";
        }
        return unit == ChronoUnit.WEEKS ? "week" : "month";
    }

    private static Response withBody(Response.ResponseBuilder response, Json body) {
        // bytes, so the charset is UTF-8 whatever the runtime's default for this media type
        return response.type(MEDIA_TYPE)
                .entity(body.end().getBytes(StandardCharsets.UTF_8))
                .build();
    }

    /** A flat JSON object, members in call order, strings escaped per RFC 8259. */
    static final class Json {
        private final StringBuilder out;

        Json(int capacity) {
            out = new StringBuilder(capacity).append('{');
        }

        Json string(String name, String value) {
            key(name);
            quote(value);
            return this;
        }

        Json optionalString(String name, @Nullable String value) {
            return value == null ? this : string(name, value);
        }

        Json number(String name, long value) {
            key(name);
            out.append(value);
            return this;
        }

        String end() {
            return out.append('}').toString();
        }

        private void key(String name) {
            if (out.length() > 1) {
                out.append(',');
            }
            quote(name);
            out.append(':');
        }

        private void quote(String value) {
            out.append('"');
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                switch (c) {
                    case '"':
                        out.append("\\\"");
                        break;
                    case '\\':
                        out.append("\\\\");
                        break;
                    case '\n':
                        out.append("\\n");
                        break;
                    case '\r':
                        out.append("\\r");
                        break;
                    case '\t':
                        out.append("\\t");
                        break;
                    default:
                        if (c < 0x20 || c == 0x7F || c == '\u2028' || c == '\u2029') {
                            out.append("\\u");
                            String hex = Integer.toHexString(c);
                            for (int pad = hex.length(); pad < 4; pad++) {
                                out.append('0');
                            }
                            out.append(hex);
                        } else {
                            out.append(c);
                        }
                }
            }
            out.append('"');
        }
    }
}
