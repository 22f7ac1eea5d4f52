package dev.quota.jaxrs;

import dev.quota.core.QuotaConfig;
import dev.quota.core.RouteMatch;
import dev.quota.core.Rule;
import java.lang.reflect.Method;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rule of one resource method: its {@link Quota @Quota} rule if annotated, else the rule whose
 * {@code match} names the method's HTTP method and path template, else none (plan limits only); and
 * its {@link AmountLimit}, if any.
 *
 * <p>Built once per resource method at start-up. The config match is computed on the first request
 * and again only after a config reload, so a request costs one reference comparison.
 */
final class EndpointRule {

    private static final Logger log = LoggerFactory.getLogger(EndpointRule.class);

    private final @Nullable String annotated;
    private final @Nullable String amountLimits;
    private final @Nullable String httpMethod;
    /** -1 without {@link SettledCost}; else its {@link SettledCost#bytesPerToken()}. */
    private final long settledBytesPerToken;
    private final String template;
    private final String shape;
    private volatile @Nullable Cached cached;

    private record Cached(QuotaConfig config, String method, @Nullable String rule) {
    }

    EndpointRule(@Nullable String annotated, @Nullable String amountLimits, @Nullable String httpMethod,
                 String template) {
        this(annotated, amountLimits, httpMethod, template, -1);
    }

    private EndpointRule(@Nullable String annotated, @Nullable String amountLimits, @Nullable String httpMethod,
                         String template, long settledBytesPerToken) {
        this.settledBytesPerToken = settledBytesPerToken;
        this.annotated = annotated;
        this.amountLimits = amountLimits;
        this.httpMethod = httpMethod;
        this.template = Objects.requireNonNull(template, "template");
        this.shape = RouteMatch.shapeOf(template);
    }

    /** The rule of {@code method} of {@code resourceClass}: method annotation, class annotation, or by path. */
    static EndpointRule of(Class<?> resourceClass, Method method) {
        Quota quota = ResourceAnnotations.onMethod(resourceClass, method, Quota.class);
        if (quota == null) {
            quota = ResourceAnnotations.onClass(resourceClass, Quota.class);
        }
        if (quota == null && method.getDeclaringClass() != resourceClass) {
            quota = ResourceAnnotations.onClass(method.getDeclaringClass(), Quota.class);
        }
        AmountLimit amount = ResourceAnnotations.onMethod(resourceClass, method, AmountLimit.class);
        String httpMethod = ResourceAnnotations.httpMethod(resourceClass, method);
        SettledCost settled = ResourceAnnotations.onMethod(resourceClass, method, SettledCost.class);
        if (settled != null && settled.bytesPerToken() < 0) {
            throw new IllegalStateException(PathTemplates.template(resourceClass, method)
                    + " is marked @SettledCost with bytesPerToken " + settled.bytesPerToken() + ", which must be >= 0");
        }
        return new EndpointRule(quota == null ? null : quota.value(), amount == null ? null : amount.value(),
                httpMethod, PathTemplates.template(resourceClass, method),
                settled == null ? -1 : settled.bytesPerToken());
    }

    /** Whether the method is marked {@link SettledCost}. */
    boolean settled() {
        return settledBytesPerToken >= 0;
    }

    /** {@link SettledCost#bytesPerToken()}; 0 when the resource reports the cost, or without the annotation. */
    long bytesPerToken() {
        return Math.max(0, settledBytesPerToken);
    }

    /** {@code GET /accounts/{id}/export}, for logs. */
    String describe() {
        return (httpMethod == null ? "*" : httpMethod) + " " + template;
    }

    /** The annotated rule name, or null. */
    @Nullable String annotated() {
        return annotated;
    }

    /** The amount limits of {@link AmountLimit}, or null. */
    @Nullable String amountLimits() {
        return amountLimits;
    }

    /**
     * The rule for a request under {@code config}, or null for the plan limits only. The resource
     * method's own HTTP method is matched when it has one, so a {@code GET} rule also covers the
     * {@code HEAD} requests the runtime answers with the {@code GET} method.
     */
    @Nullable String rule(QuotaConfig config, String requestMethod) {
        if (annotated != null) {
            return annotated;
        }
        String method = httpMethod != null ? httpMethod : requestMethod;
        Cached current = cached;
        if (current != null) {
            // the active config's instance: a reload makes another, so the cache misses and matches again
            @SuppressWarnings("ReferenceEquality")
            boolean sameConfig = current.config == config;
            if (sameConfig && current.method.equals(method)) {
                return current.rule;
            }
        }
        String rule = match(config, method);
        cached = new Cached(config, method, rule);
        return rule;
    }

    private @Nullable String match(QuotaConfig config, String method) {
        String found = null;
        int matching = 0;
        for (Rule rule : config.rules().values()) {
            if (rule.matches(method, shape)) {
                matching++;
                if (found == null || rule.name().compareTo(found) < 0) {
                    found = rule.name();
                }
            }
        }
        if (matching > 1) {
            log.warn("{} rules match {}; applying {}, the first by name", matching, describe(), found);
        }
        return found;
    }
}
