package dev.quota.jaxrs;

import dev.quota.core.QuotaStoreException;
import dev.quota.core.store.ForwardingStore;
import dev.quota.core.store.InMemoryStore;

/** A store that is always down, like Redis during a failover. */
final class FailingStore extends ForwardingStore {

    FailingStore() {
        super(InMemoryStore.builder().build());
    }

    @Override
    protected void before(String operation) {
        throw QuotaStoreException.outage("connection refused");
    }
}
