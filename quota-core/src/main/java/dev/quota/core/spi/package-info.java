/**
 * The storage extension point: {@link dev.quota.core.spi.QuotaStore} and the values it trades in.
 * A new backend implements the store and passes the contract test suite that every store runs.
 */
@NullMarked
package dev.quota.core.spi;

import org.jspecify.annotations.NullMarked;
