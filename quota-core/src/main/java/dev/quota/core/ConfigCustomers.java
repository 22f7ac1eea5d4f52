package dev.quota.core;

import dev.quota.core.spi.CustomerDirectory;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** The default {@link CustomerDirectory}: the active config's {@code customers} and {@code apiKeys}. */
final class ConfigCustomers implements CustomerDirectory {

    private final Supplier<QuotaConfig> config;

    ConfigCustomers(Supplier<QuotaConfig> config) {
        this.config = config;
    }

    @Override
    public @Nullable Customer byApiKeyHash(String sha256Hex) {
        return config.get().customerForKeyHash(sha256Hex);
    }

    @Override
    public @Nullable Customer byId(String id) {
        return config.get().customers().get(id);
    }

    @Override
    public String toString() {
        return "the config's customers";
    }
}
