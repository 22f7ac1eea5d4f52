package dev.quota.jcache;

import javax.cache.Cache;

/** Writes through the portable JCache API: the cache's own expiry policy decides when entries go. */
final class JCacheWriter implements EntryWriter {

    private final Cache<String, byte[]> cache;

    JCacheWriter(Cache<String, byte[]> cache) {
        this.cache = cache;
    }

    @Override
    public boolean create(String key, byte[] value, long keepNanos, long keepAnyNanos) {
        return cache.putIfAbsent(key, value);
    }

    @Override
    public boolean replace(String key, byte[] expected, byte[] value, long keepNanos, long keepAnyNanos) {
        return cache.replace(key, expected, value);
    }

    @Override
    public boolean perEntryExpiry() {
        return false;
    }
}
