package dev.quota.core.config;

import dev.quota.core.Identity;
import dev.quota.core.Limit;
import dev.quota.core.Refill;
import dev.quota.core.net.Cidr;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the {@code identity} section: key header, anonymous callers, proxies, failed keys, pending
 * bodies.
 *
 * <p>{@code missingKey} defaults to {@code anonymous} when the file has a plan named
 * {@code anonymous}, and to {@code reject} (401 {@code missing-api-key}) when it has none and says
 * nothing about anonymous callers, so that an API for key holders only needs no identity section.
 * Naming {@code missingKey: anonymous} or an {@code anonymousPlan} that is not a plan stays an error.
 */
final class IdentityParser {

    static final Pattern HEADER = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    private IdentityParser() {
    }

    /**
     * The identity settings, or null with errors recorded.
     *
     * @param section   the section, or null when the file has none (every default)
     * @param planNames every well-named plan of the file, for {@code anonymousPlan}
     * @param plansRead whether the plans section could be read at all (else plan references are not checked)
     */
    static @Nullable Identity parse(@Nullable ConfigMap section, Set<String> planNames, boolean plansRead,
                                    ConfigProblems problems) {
        Identity defaults = Identity.DEFAULT;
        String header = defaults.header();
        String missingKey = defaults.missingKey().name().toLowerCase(Locale.ROOT);
        String anonymousPlan = defaults.anonymousPlan();
        List<Cidr> trustedProxies = List.of();
        Long ipv6Prefix = (long) Identity.DEFAULT_IPV6_PREFIX;
        String userHeader = null;
        Limit failedKeys = Identity.DEFAULT_FAILED_KEYS;
        String whileBlocked = "known-keys";
        String principalPlan = null;
        Long pendingBodies = (long) Identity.DEFAULT_PENDING_BODIES;
        int errorsBefore = problems.errorCount();
        if (section != null) {
            section.allowOnly("header", "missingKey", "anonymousPlan", "trustedProxies", "ipv6Prefix", "userHeader",
                    "failedKeys", "whileBlocked", "principalPlan", "pendingBodies");
            header = section.has("header") ? header(section, "header", problems) : header;
            missingKey = section.has("missingKey") ? section.choice("missingKey", "anonymous", "reject") : missingKey;
            anonymousPlan = section.has("anonymousPlan") ? section.string("anonymousPlan") : anonymousPlan;
            trustedProxies = AllowListParser.cidrs(section, "trustedProxies",
                    "would trust every client's X-Forwarded-For; list your proxies' addresses", problems);
            if (section.has("ipv6Prefix")) {
                ipv6Prefix = section.integer("ipv6Prefix", 1);
                if (ipv6Prefix != null && ipv6Prefix > 128) {
                    problems.error(section.path("ipv6Prefix"), "must be <= 128 but was " + ipv6Prefix);
                    ipv6Prefix = null;
                }
            }
            userHeader = section.has("userHeader") ? header(section, "userHeader", problems) : null;
            if (userHeader != null && trustedProxies != null && trustedProxies.isEmpty()) {
                problems.warn(section.path("userHeader"), "has no effect without identity.trustedProxies:"
                        + " the header is only believed from a trusted proxy");
            }
            if (section.has("failedKeys")) {
                failedKeys = failedKeys(section.map("failedKeys"), problems);
            }
            if (section.has("pendingBodies")) {
                pendingBodies = section.integer("pendingBodies", 1);
                if (pendingBodies != null && pendingBodies > Identity.MAX_PENDING_BODIES) {
                    problems.error(section.path("pendingBodies"), "must be <= " + Identity.MAX_PENDING_BODIES
                            + " but was " + pendingBodies);
                    pendingBodies = null;
                }
            }
            whileBlocked = section.has("whileBlocked") ? section.choice("whileBlocked", "known-keys", "no-keys")
                    : whileBlocked;
            if (section.has("principalPlan")) {
                principalPlan = section.string("principalPlan");
                if (principalPlan != null && plansRead && !planNames.contains(principalPlan)) {
                    problems.error(section.path("principalPlan"), "unknown plan " + ConfigProblems.quote(principalPlan)
                            + " (known: " + String.join(", ", planNames) + ")");
                }
            }
        }
        String planPath = ConfigProblems.key("identity", "anonymousPlan");
        boolean saysAnonymous = section != null && (section.has("missingKey") || section.has("anonymousPlan"));
        // without an anonymousPlan key, the plan is still the default one, never null
        if (!saysAnonymous && anonymousPlan != null && plansRead && !planNames.contains(anonymousPlan)) {
            // Nothing asks for anonymous callers and there is no plan for them: they need a key.
            missingKey = "reject";
            String similar = ConfigMap.closest(anonymousPlan, planNames.toArray(String[]::new));
            if (similar != null) {
                problems.warn(planPath, "no plan " + ConfigProblems.quote(anonymousPlan) + ", so requests without an API"
                        + " key get 401 (did you mean plan " + ConfigProblems.quote(similar) + "? name it "
                        + anonymousPlan + " or set identity.anonymousPlan)");
            }
        }
        if ("anonymous".equals(missingKey) && anonymousPlan != null && plansRead && !planNames.contains(anonymousPlan)) {
            problems.error(planPath, "unknown plan " + ConfigProblems.quote(anonymousPlan) + " (known: "
                    + String.join(", ", planNames) + "); add that plan or set identity.missingKey to reject");
        }
        if (problems.errorCount() > errorsBefore || header == null || missingKey == null || anonymousPlan == null
                || trustedProxies == null || ipv6Prefix == null || failedKeys == null || whileBlocked == null || pendingBodies == null) {
            return null;
        }
        try {
            return Identity.builder().header(header)
                    .missingKey(Identity.MissingKey.valueOf(missingKey.toUpperCase(Locale.ROOT)))
                    .anonymousPlan(anonymousPlan).trustedProxies(trustedProxies).ipv6Prefix(ipv6Prefix.intValue())
                    .userHeader(userHeader).failedKeys(failedKeys)
                    .whileBlocked(whileBlocked.equals("no-keys") ? Identity.WhileBlocked.NO_KEYS
                            : Identity.WhileBlocked.KNOWN_KEYS)
                    .principalPlan(principalPlan)
                    .pendingBodies(pendingBodies.intValue())
                    .build();
        } catch (IllegalArgumentException e) {
            problems.error("identity", String.valueOf(e.getMessage()));
            return null;
        }
    }

    private static @Nullable String header(ConfigMap section, String key, ConfigProblems problems) {
        String header = section.string(key);
        if (header != null && !HEADER.matcher(header).matches()) {
            problems.error(section.path(key), "must be an HTTP header name such as X-API-Key but was "
                    + ConfigProblems.quote(header));
            return null;
        }
        return header;
    }

    /** {@code {capacity: 10, period: 1m}}: that many failed lookups, refilled greedily over the period. */
    private static @Nullable Limit failedKeys(@Nullable ConfigMap map, ConfigProblems problems) {
        if (map == null) {
            return null;
        }
        map.allowOnly("capacity", "period");
        boolean complete = map.require("capacity", "period");
        Long capacity = map.integer("capacity", 1);
        Duration period = map.has("period") ? LimitsParser.period(map.raw("period"), map.path("period"), problems) : null;
        if (!complete || capacity == null || period == null) {
            return null;
        }
        return new Limit(Identity.DEFAULT_FAILED_KEYS.name(), capacity, Refill.greedy(capacity, period));
    }
}
