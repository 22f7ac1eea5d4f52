package dev.quota.demo;

import dev.quota.core.QuotaConfig;
import dev.quota.core.config.QuotaConfigLoader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Path;

/** The configs the tests run with: the bundled {@code plans.yaml} and files under {@code plans/}. */
final class Configs {

    private Configs() {
    }

    /** The config the demo ships with. */
    static QuotaConfig bundled() {
        try (InputStream in = Configs.class.getClassLoader().getResourceAsStream("plans.yaml")) {
            return QuotaConfigLoader.parse(in, "plans.yaml");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The path of test resource {@code plans/<name>}. */
    static Path file(String name) {
        try {
            return Path.of(Configs.class.getResource("/plans/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
