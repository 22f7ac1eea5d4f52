package dev.quota.core.config;

import dev.quota.core.AllowList;
import dev.quota.core.net.Cidr;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** Reads the {@code allow} section, and lists of address ranges anywhere in the file. */
final class AllowListParser {

    private AllowListParser() {
    }

    /**
     * The allow-list, or null when it is invalid (errors recorded).
     *
     * @param apiKeys the valid {@code apiKeys} of the file, by hash: an allow-listed key must be one
     */
    static @Nullable AllowList parse(ConfigMap section, Map<String, String> apiKeys, ConfigProblems problems) {
        int errorsBefore = problems.errorCount();
        section.allowOnly("customers", "apiKeys", "cidrs");
        Set<String> customers = new LinkedHashSet<>();
        for (Item item : strings(section, "customers", problems)) {
            if (item.value().isEmpty() || item.value().length() > QuotaConfigParser.MAX_CUSTOMER_ID) {
                problems.error(item.path(), "customer id must be 1 to " + QuotaConfigParser.MAX_CUSTOMER_ID
                        + " characters but was " + item.value().length());
            } else {
                customers.add(item.value());
            }
        }
        Set<String> keys = new LinkedHashSet<>();
        for (Item item : strings(section, "apiKeys", problems)) {
            String hash = item.value().toLowerCase(Locale.ROOT);
            if (!QuotaConfigParser.SHA256.matcher(hash).matches()) {
                problems.error(item.path(), "must be 64 hex characters (the SHA-256 of the API key, see ApiKeys)"
                        + " but was " + ConfigProblems.quote(item.value()));
            } else if (!apiKeys.containsKey(hash)) {
                problems.error(item.path(), "no API key with this hash under apiKeys (allow-listed keys must"
                        + " belong to a customer)");
            } else {
                keys.add(hash);
            }
        }
        List<Cidr> cidrs = cidrs(section, "cidrs", "allow-lists every caller; set enabled: false to stop limiting",
                problems);
        if (problems.errorCount() > errorsBefore || cidrs == null) {
            return null;
        }
        return new AllowList(customers, keys, cidrs);
    }

    /**
     * The address ranges listed at {@code key} ({@code ["10.0.0.0/8", "2001:db8::/32"]}), empty when
     * absent, or null with errors recorded. Duplicates and a {@code /0} range are errors.
     *
     * @param whyNotZero the end of the error message for a {@code /0} range
     */
    static @Nullable List<Cidr> cidrs(ConfigMap map, String key, String whyNotZero, ConfigProblems problems) {
        int errorsBefore = problems.errorCount();
        List<Cidr> cidrs = new ArrayList<>();
        Map<Cidr, String> firstPath = new HashMap<>();
        for (Item item : strings(map, key, problems)) {
            Cidr cidr;
            try {
                cidr = Cidr.parse(item.value().trim());
            } catch (IllegalArgumentException e) {
                problems.error(item.path(), String.valueOf(e.getMessage()));
                continue;
            }
            if (cidr.prefixLength() == 0) {
                problems.error(item.path(), ConfigProblems.quote(item.value()) + " " + whyNotZero);
                continue;
            }
            String first = firstPath.putIfAbsent(cidr, item.path());
            if (first != null) {
                problems.error(item.path(), "duplicate range " + cidr + " (already at " + first + ")");
                continue;
            }
            cidrs.add(cidr);
        }
        return problems.errorCount() > errorsBefore ? null : cidrs;
    }

    /** The strings listed at {@code key} with their paths; items that are not strings are errors. */
    private static List<Item> strings(ConfigMap map, String key, ConfigProblems problems) {
        List<Object> values = map.list(key);
        List<Item> items = new ArrayList<>();
        for (int i = 0; values != null && i < values.size(); i++) {
            String path = ConfigProblems.index(map.path(key), i);
            String value = ConfigMap.string(values.get(i), path, problems);
            if (value != null) {
                items.add(new Item(path, value));
            }
        }
        return items;
    }

    private record Item(String path, String value) {
    }
}
