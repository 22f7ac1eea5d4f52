package dev.quota.demo;

import java.util.List;

/**
 * The plain API keys whose hashes the bundled {@code plans.yaml} lists, for the start-up banner.
 * Only keys the active config knows are shown, so a custom {@code --config} shows its own (none).
 */
final class DemoKeys {

    /** The keys, in the order of the banner. */
    static final List<String> ALL = List.of("demo-free-key", "demo-pro-key", "demo-sav2001-key", "demo-enterprise-key");

    private DemoKeys() {
    }
}
