package dev.quota.bench;

/** What one limiter call answered. */
public enum Outcome {
    /** The request may proceed. */
    ADMITTED,
    /** The request was over its limit. */
    REJECTED,
    /** The limiter failed (timeout, store down): neither admitted nor rejected. */
    ERROR
}
