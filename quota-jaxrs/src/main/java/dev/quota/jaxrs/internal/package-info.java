/**
 * What the quota filters ({@link dev.quota.jaxrs}) and the admin API ({@code dev.quota.jaxrs.admin})
 * share without it being API: how the quota filter hands an admin call to its token check
 * ({@link dev.quota.jaxrs.internal.ResourceChecks}), the RFC 9457 problem responses and the
 * {@code RateLimit} headers they write, the JSON writer behind both, and how the default
 * {@link dev.quota.jaxrs.ClientAddress} learns the TCP peer of a request on each runtime, without
 * user code (one small request filter per runtime, registered by
 * {@link dev.quota.jaxrs.QuotaFeature} only when that runtime's classes are present, so this module
 * loads on any Jakarta REST runtime). Classes here are public only so that the other packages of
 * this module, or the runtime, can reach them; nothing here is API. Nothing here is null unless
 * marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.jaxrs.internal;

import org.jspecify.annotations.NullMarked;
