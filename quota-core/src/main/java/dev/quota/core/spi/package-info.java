/**
 * The storage extension point: {@link dev.quota.core.spi.QuotaStore} and the values it trades in.
 * A new backend implements the store and passes the contract test suite that every store runs.
 * What a store needs of bucket arithmetic and shared policy is here too, stable like the rest of
 * the SPI: Bucket4j's commands on stored states ({@link dev.quota.core.spi.BucketMath}, which never
 * changes a state it is given; the library's own stores' allocation-saving variants are in
 * {@code dev.quota.core.internal}, not part of this SPI), the split
 * consume ({@link dev.quota.core.spi.SplitConsume}), refill times
 * ({@link dev.quota.core.spi.RefillTimes}), the compare-and-swap retry budget
 * ({@link dev.quota.core.spi.RetryBudget}) and unreadable stored bytes
 * ({@link dev.quota.core.spi.UnreadableBuckets}).
 */
@NullMarked
package dev.quota.core.spi;

import org.jspecify.annotations.NullMarked;
