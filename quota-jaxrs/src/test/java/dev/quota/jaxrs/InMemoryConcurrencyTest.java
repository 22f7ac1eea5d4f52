package dev.quota.jaxrs;

import dev.quota.core.spi.QuotaStore;
import dev.quota.core.store.InMemoryStore;
import java.time.Clock;

class InMemoryConcurrencyTest extends ConcurrencyContract {

    @Override
    QuotaStore store(Clock clock) {
        return InMemoryStore.builder().clock(clock).build();
    }
}
