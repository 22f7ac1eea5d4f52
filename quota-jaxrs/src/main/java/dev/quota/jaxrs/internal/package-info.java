/**
 * What the quota filters and the admin API of this module share without it being API: the RFC 9457
 * problem responses and the {@code RateLimit} headers they write, the JSON writer behind both, and how the default {@link dev.quota.jaxrs.ClientAddress} learns the TCP peer
 * of a request on each runtime, without user code (one small request filter per runtime,
 * registered by {@link dev.quota.jaxrs.QuotaFeature} only when that runtime's classes are present,
 * so this module loads on any Jakarta REST runtime). Classes here are public only so that the
 * other packages of this module, or the runtime, can reach them; nothing here is API. Nothing here
 * is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.jaxrs.internal;

import org.jspecify.annotations.NullMarked;
