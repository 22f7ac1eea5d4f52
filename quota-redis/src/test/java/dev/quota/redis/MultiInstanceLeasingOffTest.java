package dev.quota.redis;

import dev.quota.core.TokenLeasing;

/**
 * {@link MultiInstanceTest} with leased shares off ({@code leasing: off}): three instances whose
 * every decision goes to Redis hold the limits for the fleet as well.
 */
class MultiInstanceLeasingOffTest extends MultiInstanceTest {

    @Override
    protected TokenLeasing tokenLeasing() {
        return TokenLeasing.OFF;
    }
}
