package dev.quota.jaxrs;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Keeps a resource method, or every method of a resource class, out of quota enforcement: no
 * caller resolution, no tokens, no quota headers. For health checks, readiness probes and metrics
 * scrapes, which must answer while every customer is limited and are not customers' traffic.
 *
 * <pre>{@code
 * @Path("/health") @Unlimited
 * public class HealthResource { ... }
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Unlimited {
}
