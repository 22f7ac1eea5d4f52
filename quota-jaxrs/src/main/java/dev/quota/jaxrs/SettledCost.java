package dev.quota.jaxrs;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a resource method whose rule's cost is an estimate, settled to the actual cost once the
 * response has been written: the request is charged the rule's {@code cost} when it comes in, and
 * the difference is taken or given back afterwards ({@link dev.quota.core.QuotaService#settle}).
 *
 * <pre>{@code
 * @GET @Path("report") @Quota("report") @SettledCost             // the response says: Quota-Cost: 37
 * public Response report() { ... }
 *
 * @GET @Path("download") @Quota("download") @SettledCost(bytesPerToken = 1_048_576)
 * public StreamingOutput download() { ... }                       // 5.5 MB written: charged 6
 * }</pre>
 *
 * <p>The actual cost is the response body's size in units of {@link #bytesPerToken()} (a part
 * counted whole) when that is set; else what the resource measured with its {@link QuotaMeter};
 * else the response's {@value QuotaMeter#HEADER} header, honoured on methods with this annotation
 * only (a header passed on from another service must not bill anyone elsewhere); else the estimate
 * stands. A failed response (400 or above) is refunded instead. A {@link QuotaMeter} settles a
 * method without this annotation too: calling it says as much.
 *
 * <p>A body billed by the byte is charged while it is written, in batches drawn from the plan
 * ({@link dev.quota.core.RunningCost}), and written only as far as its customer can pay: on a plan
 * with 500 tokens left at 100 bytes a token, exactly 50,000 bytes, after which its next write fails
 * with an {@link java.io.IOException} and the client sees the body break off.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface SettledCost {

    /**
     * Bytes of response body per plan token: 1_048_576 bills a download per megabyte begun, and a
     * body of 0 bytes costs 0. 0 (the default): the resource reports the cost itself.
     */
    long bytesPerToken() default 0;
}
