package dev.quota.core.config;

import java.util.List;

/**
 * A config file that cannot be used. Carries every problem found, not just the first, so an
 * operator fixes the file in one pass.
 *
 * <p>The message names the source and lists the errors one per line:
 * <pre>
 * invalid quota config quota.yaml (2 errors):
 *   plans.free.limits[0].capacity: must be &gt;= 1 but was 0
 *   plans.free.limits[1].period: unknown unit "mins" (use ms, s, m, h, d)
 * </pre>
 */
public final class InvalidConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String sourceName;
    private final List<ConfigError> errors;

    /**
     * @param sourceName the file name or other label of the config, used in the message
     * @param errors     at least one error
     * @throws IllegalArgumentException if errors is empty
     */
    public InvalidConfigException(String sourceName, List<ConfigError> errors) {
        super(message(sourceName, errors));
        this.sourceName = sourceName;
        this.errors = List.copyOf(errors);
    }

    /** The file name or label the config was read from. */
    public String sourceName() {
        return sourceName;
    }

    /**
     * Every error found; never empty. The order is stable: YAML problems alone if the text is not
     * usable YAML, otherwise section by section (version, enabled, mode, plans, identity, rules,
     * amounts, customers, apiKeys, allow) and in file order within a section.
     */
    public List<ConfigError> errors() {
        return errors;
    }

    private static String message(String sourceName, List<ConfigError> errors) {
        if (errors.isEmpty()) {
            throw new IllegalArgumentException("an invalid config needs at least one error");
        }
        var text = new StringBuilder("invalid quota config ").append(sourceName).append(" (")
                .append(errors.size()).append(errors.size() == 1 ? " error):" : " errors):");
        for (ConfigError error : errors) {
            text.append("\n  ").append(error);
        }
        return text.toString();
    }
}
