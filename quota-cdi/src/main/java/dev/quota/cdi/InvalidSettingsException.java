package dev.quota.cdi;

import java.util.List;

/**
 * The quota settings of an application are wrong: every problem at once, each naming its setting
 * ({@code quota.store: unknown store "redsi" (use redis, jcache or memory)}). Thrown while the
 * application starts, so a bad setting fails the deployment with this message.
 */
public final class InvalidSettingsException extends IllegalArgumentException {

    private final List<String> problems;

    /** @param problems one line per problem, each starting with the setting's name */
    public InvalidSettingsException(List<String> problems) {
        super(message(problems));
        this.problems = List.copyOf(problems);
    }

    /** One line per problem, each starting with the setting's name. */
    public List<String> problems() {
        return problems;
    }

    private static String message(List<String> problems) {
        if (problems.size() == 1) {
            return "quota settings: " + problems.get(0);
        }
        return "quota settings: " + problems.size() + " problems:\n  " + String.join("\n  ", problems);
    }
}
