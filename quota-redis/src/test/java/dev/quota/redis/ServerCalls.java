package dev.quota.redis;

import dev.quota.testkit.RespClient;
import java.util.Map;
import java.util.TreeMap;

/** What a test counts on the server: the calls of each command since the last {@code CONFIG RESETSTAT}. */
final class ServerCalls {

    private ServerCalls() {
    }

    /**
     * Calls of each command the server ran since the last reset, those a script ran included,
     * other than the test's own INFO and CONFIG.
     */
    static Map<String, Long> since(RespClient admin) {
        Map<String, Long> calls = new TreeMap<>();
        for (Map.Entry<String, Long> e : admin.commandStats().entrySet()) {
            if (!e.getKey().equals("info") && !e.getKey().startsWith("config")) {
                calls.put(e.getKey(), e.getValue());
            }
        }
        return calls;
    }
}
