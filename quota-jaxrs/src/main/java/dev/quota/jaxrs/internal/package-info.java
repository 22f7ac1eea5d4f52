/**
 * How the default {@link dev.quota.jaxrs.ClientAddress} learns the TCP peer of a request on each
 * runtime, without user code: one small request filter per runtime, registered by
 * {@link dev.quota.jaxrs.QuotaFeature} only when that runtime's classes are present, so this
 * module loads on any Jakarta REST runtime. The filters are public only so that the runtime can
 * instantiate and inject them; nothing here is API. Nothing here is null unless marked
 * {@code @Nullable}.
 */
@NullMarked
package dev.quota.jaxrs.internal;

import org.jspecify.annotations.NullMarked;
