package dev.quota.cdi;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * Where the quota settings are read from: MicroProfile Config when the server has it (which sees
 * system properties, environment variables and {@code META-INF/microprofile-config.properties}),
 * else system properties, then environment variables ({@code quota.redis.uri} is
 * {@code QUOTA_REDIS_URI}).
 */
public interface SettingsSource {

    /** The value of {@code name} ({@code quota.store}), or null when it is not set. */
    @Nullable String get(String name);

    /** Every setting name this source knows of, to report unknown {@code quota.*} names (typos). */
    Iterable<String> names();

    /** The environment variable {@code name}, or null; secrets are read from here only. */
    @Nullable String environment(String name);

    /**
     * MicroProfile Config when its API and an implementation are present, else
     * {@link #system(Properties, Map)} over this JVM's properties and environment.
     */
    static SettingsSource detect() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = SettingsSource.class.getClassLoader();
        }
        try {
            Class.forName("org.eclipse.microprofile.config.ConfigProvider", false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return system(System.getProperties(), System.getenv());
        }
        SettingsSource microProfile = MicroProfileSource.of(loader);
        return microProfile != null ? microProfile : system(System.getProperties(), System.getenv());
    }

    /**
     * {@code properties} first, then {@code environment} under the MicroProfile Config name
     * ({@code quota.redis.uri}: {@code QUOTA_REDIS_URI}).
     */
    static SettingsSource system(Properties properties, Map<String, String> environment) {
        Properties copy = new Properties();
        copy.putAll(properties);
        Map<String, String> env = Map.copyOf(environment);
        return new SettingsSource() {
            @Override
            public @Nullable String get(String name) {
                String value = copy.getProperty(name);
                return value != null ? value : env.get(environmentName(name));
            }

            @Override
            public Iterable<String> names() {
                List<String> names = new ArrayList<>(copy.stringPropertyNames());
                names.addAll(env.keySet());
                return names;
            }

            @Override
            public @Nullable String environment(String name) {
                return env.get(name);
            }

            @Override
            public String toString() {
                return "system properties and environment variables";
            }
        };
    }

    /** {@code quota.redis.uri} as an environment variable: {@code QUOTA_REDIS_URI}. */
    static String environmentName(String name) {
        return name.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
    }
}
