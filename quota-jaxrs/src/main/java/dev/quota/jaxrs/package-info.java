/**
 * Jakarta REST glue for the limiter: register {@link dev.quota.jaxrs.QuotaFeature} and every
 * resource method is limited per customer on the customer's plan, with endpoint rules bound by
 * {@link dev.quota.jaxrs.Quota @Quota} or matched from the config; rejections are answered
 * {@code 429} with {@code Retry-After}, {@code RateLimit} headers and an RFC 9457 problem body.
 * Compiles against the Jakarta REST 3.1 API only, so it runs on any runtime of that version or
 * later. The admin API is in {@code dev.quota.jaxrs.admin}, which uses this package, never the
 * reverse. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.jaxrs;

import org.jspecify.annotations.NullMarked;
