package dev.quota.cdi;

import dev.quota.core.QuotaConfig;
import dev.quota.core.config.InvalidConfigException;
import dev.quota.core.config.QuotaConfigLoader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/** Loads the plans file {@code quota.plans} names: a path on disk, or a resource of the application. */
final class PlansFile {

    private PlansFile() {
    }

    /**
     * The config in the plans file.
     *
     * @param loader finds {@code classpath:} resources: the application's class loader
     * @throws InvalidSettingsException naming {@code quota.plans} and every error in the file
     */
    static QuotaConfig load(QuotaSettings settings, ClassLoader loader) {
        String plans = settings.plans();
        try {
            if (settings.plansOnDisk()) {
                return QuotaConfigLoader.load(Path.of(plans));
            }
            String name = plans.substring(QuotaSettings.CLASSPATH.length());
            String resource = name.startsWith("/") ? name.substring(1) : name;
            try (InputStream in = loader.getResourceAsStream(resource)) {
                if (in == null) {
                    throw problem(plans + " is not in the application: put " + resource
                            + " in WEB-INF/classes (src/main/resources), or set " + QuotaSettings.PLANS
                            + " to a file path");
                }
                return QuotaConfigLoader.parse(in, plans);
            }
        } catch (InvalidConfigException e) {
            throw problem(String.valueOf(e.getMessage()));
        } catch (UncheckedIOException e) {
            throw problem(e.getMessage() + ": " + e.getCause());
        } catch (IOException e) {
            throw problem("cannot read " + plans + ": " + e);
        }
    }

    private static InvalidSettingsException problem(String message) {
        return new InvalidSettingsException(List.of(QuotaSettings.PLANS + ": " + message));
    }
}
