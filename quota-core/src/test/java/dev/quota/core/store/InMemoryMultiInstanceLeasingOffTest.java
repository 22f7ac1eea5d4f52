package dev.quota.core.store;

import dev.quota.core.TokenLeasing;

/**
 * The multi-instance contract with leased shares off ({@code leasing: off}): the plain path, where
 * every decision goes to the store, keeps the same guarantees as the leased one.
 */
class InMemoryMultiInstanceLeasingOffTest extends InMemoryMultiInstanceTest {

    @Override
    protected TokenLeasing tokenLeasing() {
        return TokenLeasing.OFF;
    }
}
