package dev.quota.core.spi;

import java.util.Objects;

/**
 * The storage key of one bucket. Built by the core from hashed identities and validated names, so
 * no caller-controlled string reaches a key or chooses a Redis Cluster hash slot.
 *
 * @param value the key as stored, for example {@code quota:p:3q2+7w...}
 */
public record BucketKey(String value) {

    /** @throws IllegalArgumentException if the value is empty */
    public BucketKey {
        Objects.requireNonNull(value, "value");
        if (value.isEmpty()) {
            throw new IllegalArgumentException("bucket key must not be empty");
        }
    }

    @Override
    public String toString() {
        return value;
    }
}
