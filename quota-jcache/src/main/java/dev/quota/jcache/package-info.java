/**
 * The JCache (JSR-107) backend: {@link dev.quota.jcache.JCacheStore} keeps Bucket4j buckets in the
 * data grid a Jakarta EE server already runs (Payara's Hazelcast, or any grid whose JCache runs
 * entry processors where the data is), all of a customer's buckets in one entry, changed by
 * compare-and-swap of byte arrays or by an entry processor. Nothing here is null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.quota.jcache;

import org.jspecify.annotations.NullMarked;
