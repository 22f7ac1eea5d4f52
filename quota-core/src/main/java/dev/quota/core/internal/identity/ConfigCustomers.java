package dev.quota.core.internal.identity;

import dev.quota.core.Customer;
import dev.quota.core.QuotaConfig;
import dev.quota.core.spi.CustomerDirectory;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** The default {@link CustomerDirectory}: the active config's {@code customers} and {@code apiKeys}. */
public final class ConfigCustomers implements CustomerDirectory {

    private final Supplier<QuotaConfig> config;

    /** The customers of the config {@code config} supplies when asked. */
    public ConfigCustomers(Supplier<QuotaConfig> config) {
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
