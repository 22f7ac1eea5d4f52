package dev.quota.cdi;

import java.util.HashMap;
import java.util.Map;

/** Sets system properties for one test and puts the previous values back. */
final class SystemProperties implements AutoCloseable {

    private final Map<String, String> previous = new HashMap<>();

    SystemProperties set(String name, String value) {
        if (!previous.containsKey(name)) {
            previous.put(name, System.getProperty(name));
        }
        System.setProperty(name, value);
        return this;
    }

    @Override
    public void close() {
        previous.forEach((name, value) -> {
            if (value == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, value);
            }
        });
    }
}
