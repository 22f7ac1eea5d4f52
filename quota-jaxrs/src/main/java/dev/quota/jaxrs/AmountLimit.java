package dev.quota.jaxrs;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Checks the amount a request moves against the config's amount limits of this name, together with
 * the request's own limits, in one decision. The method's entity parameter must be a
 * {@link QuotaAmount}: the decision is made once the runtime has read the body.
 *
 * <pre>{@code
 * @POST @AmountLimit("transfer-amount")
 * public Response transfer(TransferRequest body) { ... }   // TransferRequest implements QuotaAmount
 * }</pre>
 *
 * <p>125.00 EUR against a daily limit of 10,000.00 with 9,900.00 used: 429 naming
 * {@code transfer-amount-daily}, with {@code Retry-After} until midnight; 60,000.00 against a daily
 * limit of 50,000.00: 422 {@code exceeds-limit} (it can never pass); a negative amount or a missing
 * currency: 400 {@code invalid-amount}. Either way the request still costs its plan's request tokens;
 * nothing is taken from the endpoint's rule or the amount limits.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface AmountLimit {
    /** The amount limits' name, as in the config's {@code amounts}. */
    String value();
}
