package dev.quota.cdi;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jspecify.annotations.Nullable;

/** {@link SettingsSource} over MicroProfile Config; loaded only when its API is present. */
final class MicroProfileSource implements SettingsSource {

    private final Config config;

    private MicroProfileSource(Config config) {
        this.config = config;
    }

    /** The application's config, or null when the API is there without an implementation. */
    static @Nullable SettingsSource of(ClassLoader loader) {
        try {
            return new MicroProfileSource(ConfigProvider.getConfig(loader));
        } catch (IllegalStateException | java.util.ServiceConfigurationError noImplementation) {
            return null;
        }
    }

    @Override
    public @Nullable String get(String name) {
        return config.getOptionalValue(name, String.class).orElse(null);
    }

    @Override
    public Iterable<String> names() {
        return config.getPropertyNames();
    }

    @Override
    public @Nullable String environment(String name) {
        return System.getenv(name);
    }

    @Override
    public String toString() {
        return "MicroProfile Config";
    }
}
