package dev.quota.jaxrs;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Binds a resource method, or every method of a resource class, to an endpoint rule of the
 * config, layered on the caller's plan.
 *
 * <p>{@code @Quota("export")} on {@code GET /accounts/{id}/export}, with rule {@code export} of
 * cost 10 and 5 exports per hour per customer: each export takes 10 tokens from every plan limit
 * and one from the customer's export bucket. An annotation on the method wins over one on the
 * class, and either wins over a rule whose {@code matches} name the endpoint. A rule name missing
 * from the active config makes the endpoint answer 503 (and log why) rather than run unlimited.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Quota {

    /** The rule name, as in the config's {@code rules}. */
    String value();
}
