/**
 * The JCache (JSR-107) backend: {@link dev.quota.jcache.JCacheStore} keeps Bucket4j buckets in the
 * data grid a Jakarta EE server already runs (Payara's Hazelcast, or any grid whose JCache runs
 * entry processors where the data is), changed by compare-and-swap of byte arrays or by Bucket4j's
 * entry processors. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.jcache;

import org.jspecify.annotations.NullMarked;
