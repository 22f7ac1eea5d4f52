package dev.quota.jcache;

/**
 * The two conditional writes of a compare-and-swap, with the time the written bucket needs to be
 * worth keeping: where the provider supports it, the entry expires then; elsewhere the cache's own
 * expiry policy applies.
 */
interface EntryWriter {

    /**
     * Writes {@code value} if the key has no entry.
     *
     * @param keepNanos how long the entry must live after this write: until the bucket is full again,
     *                  plus the margin
     * @param keepAnyNanos how long any state of this bucket must live: the time it needs to refill from
     *                     empty, plus the margin (applied when the provider counts a failed write as a
     *                     read and sets the entry's expiry from it)
     * @return whether it was written
     */
    boolean create(String key, byte[] value, long keepNanos, long keepAnyNanos);

    /**
     * Writes {@code value} if the key holds bytes equal to {@code expected}; see {@link #create} for the
     * durations.
     *
     * @return whether it was written
     */
    boolean replace(String key, byte[] expected, byte[] value, long keepNanos, long keepAnyNanos);

    /** Whether each write sets its entry's expiry (true), or the cache's expiry policy applies (false). */
    boolean perEntryExpiry();
}
