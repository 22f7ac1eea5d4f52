package dev.quota.jcache;

import javax.cache.Cache;

/** Picks the writer for a cache: Hazelcast's own API where the cache is Hazelcast's, else plain JCache. */
final class EntryWriters {

    private static final String ICACHE = "com.hazelcast.cache.ICache";

    private EntryWriters() {
    }

    /**
     * A writer with per-entry expiry when {@code perEntry} is wanted and the cache unwraps to a
     * Hazelcast {@code ICache} of the class this module sees; otherwise plain JCache. Never touches a
     * Hazelcast class unless Hazelcast is on the class path.
     */
    static EntryWriter of(Cache<String, byte[]> cache, boolean perEntry) {
        if (!perEntry) {
            return new JCacheWriter(cache);
        }
        Class<?> icache;
        try {
            icache = Class.forName(ICACHE, false, EntryWriters.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return new JCacheWriter(cache);
        }
        Object unwrapped;
        try {
            unwrapped = cache.unwrap(icache);
        } catch (RuntimeException e) {
            return new JCacheWriter(cache); // another provider, or Hazelcast from another class loader
        }
        return new HazelcastWriter(unwrapped);
    }
}
