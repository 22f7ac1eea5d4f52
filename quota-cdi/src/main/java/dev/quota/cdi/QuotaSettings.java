package dev.quota.cdi;

import dev.quota.core.internal.Durations;
import dev.quota.core.internal.Suggestions;
import dev.quota.jaxrs.admin.AdminTokens;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The quota settings of a Jakarta EE application, read once when it starts
 * ({@link #read(SettingsSource)}). Every setting, with its default:
 *
 * <pre>
 * quota.plans                  classpath:plans.yaml   the plans file: a path, or classpath:NAME in the WAR
 * quota.plans.reload-interval  500ms                  how often a plans file at a path is checked for edits
 *                                                     (ms, s, m, h); 0 turns reloading off
 * quota.store                  memory                 redis | jcache | memory (memory: per JVM, for one instance)
 * quota.redis.uri              (none)                 required with redis: redis://host:6379, rediss://...
 * quota.redis.timeout          2s                     how long one Redis command may take (a timeout is a 503)
 * quota.redis.retry-budget     1000                   how many compare-and-swap races a decision may lose
 *                                                     to other instances writing the same buckets
 * quota.jcache.cache           quota-buckets          the JCache cache of the server's CacheManager
 * quota.jcache.mode            compare-and-swap       compare-and-swap | entry-processor
 * quota.jcache.retry-budget    1000                   how many compare-and-swap races a change may lose
 * quota.jcache.expire-after-write 25h                 entry-processor only: how long an entry outlives
 *                                                     its last write (longer than any bucket's refill)
 * quota.key-prefix             quota                  the prefix of every bucket key
 * quota.caller                 api-key                api-key | principal | both in order: principal,api-key
 * quota.customers.ttl          30s                    how long an answer of the application's own
 *                                                     CustomerDirectory is kept before it is refreshed
 * quota.customers.max-entries  100000                 answers kept at most
 * quota.admin.token-file       (none)                 a file (mode 600) with the admin API's token: turns
 *                                                     on /admin; else the environment variable
 *                                                     QUOTA_ADMIN_TOKEN; never a plain property
 * </pre>
 *
 * <p>Trusted proxies, plans, rules and customers are in the plans file
 * ({@code identity.trustedProxies}), not here.
 *
 * <p>Read only: a setting added in a later release is a new accessor, and no caller constructs one.
 */
public final class QuotaSettings {

    /** The prefix of a plans file inside the application. */
    public static final String CLASSPATH = "classpath:";
    /** The environment variable the admin token may come from. */
    public static final String ADMIN_TOKEN_ENV = "QUOTA_ADMIN_TOKEN";

    static final String PLANS = "quota.plans";
    static final String RELOAD = "quota.plans.reload-interval";
    static final String STORE = "quota.store";
    static final String REDIS_URI = "quota.redis.uri";
    static final String REDIS_TIMEOUT = "quota.redis.timeout";
    static final String REDIS_RETRY_BUDGET = "quota.redis.retry-budget";
    static final String JCACHE_CACHE = "quota.jcache.cache";
    static final String JCACHE_MODE = "quota.jcache.mode";
    static final String JCACHE_RETRY_BUDGET = "quota.jcache.retry-budget";
    static final String JCACHE_EXPIRE = "quota.jcache.expire-after-write";
    static final String KEY_PREFIX = "quota.key-prefix";
    static final String CALLER = "quota.caller";
    static final String CUSTOMERS_TTL = "quota.customers.ttl";
    static final String CUSTOMERS_MAX = "quota.customers.max-entries";
    static final String ADMIN_TOKEN_FILE = "quota.admin.token-file";
    static final String ADMIN_TOKEN = "quota.admin.token";

    /** Every setting name; any other {@code quota.*} name is reported as unknown. */
    static final Set<String> NAMES = Set.of(PLANS, RELOAD, STORE, REDIS_URI, REDIS_TIMEOUT, REDIS_RETRY_BUDGET,
            JCACHE_CACHE, JCACHE_MODE, JCACHE_RETRY_BUDGET, JCACHE_EXPIRE, KEY_PREFIX,
            CALLER, CUSTOMERS_TTL, CUSTOMERS_MAX, ADMIN_TOKEN_FILE);

    private static final Pattern CACHE_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,128}");

    private final String plans;
    private final Duration reloadInterval;
    private final Store store;
    private final @Nullable String redisUri;
    private final Duration redisTimeout;
    private final int redisRetryBudget;
    private final String jcacheCache;
    private final String jcacheMode;
    private final int jcacheRetryBudget;
    private final Duration jcacheExpireAfterWrite;
    private final String keyPrefix;
    private final List<String> caller;
    private final Duration customersTtl;
    private final long customersMaxEntries;
    private final @Nullable AdminToken adminToken;

    private QuotaSettings(String plans, Duration reloadInterval, Store store, @Nullable String redisUri,
                          Duration redisTimeout, int redisRetryBudget, String jcacheCache, String jcacheMode,
                          int jcacheRetryBudget, Duration jcacheExpireAfterWrite, String keyPrefix,
                          List<String> caller, Duration customersTtl, long customersMaxEntries,
                          @Nullable AdminToken adminToken) {
        this.plans = plans;
        this.reloadInterval = reloadInterval;
        this.store = store;
        this.redisUri = redisUri;
        this.redisTimeout = redisTimeout;
        this.redisRetryBudget = redisRetryBudget;
        this.jcacheCache = jcacheCache;
        this.jcacheMode = jcacheMode;
        this.jcacheRetryBudget = jcacheRetryBudget;
        this.jcacheExpireAfterWrite = jcacheExpireAfterWrite;
        this.keyPrefix = keyPrefix;
        this.caller = List.copyOf(caller);
        this.customersTtl = customersTtl;
        this.customersMaxEntries = customersMaxEntries;
        this.adminToken = adminToken;
    }

    /** The plans file: {@code classpath:plans.yaml} or a file path. */
    public String plans() {
        return plans;
    }

    /** How often a plans file at a path is checked for edits; zero when reloading is off. */
    public Duration reloadInterval() {
        return reloadInterval;
    }

    /** Where buckets are kept. */
    public Store store() {
        return store;
    }

    /** The Redis URI; set when the store is Redis, else null. */
    public @Nullable String redisUri() {
        return redisUri;
    }

    /** How long one Redis command may take. */
    public Duration redisTimeout() {
        return redisTimeout;
    }

    /** Per decision, how many compare-and-swap conflicts with other instances it may lose. */
    public int redisRetryBudget() {
        return redisRetryBudget;
    }

    /** The cache name for the JCache store. */
    public String jcacheCache() {
        return jcacheCache;
    }

    /** {@code compare-and-swap} or {@code entry-processor}. */
    public String jcacheMode() {
        return jcacheMode;
    }

    /** Per change, how many compare-and-swap races between members it may lose. */
    public int jcacheRetryBudget() {
        return jcacheRetryBudget;
    }

    /** How long an entry outlives its last write, in entry-processor mode. */
    public Duration jcacheExpireAfterWrite() {
        return jcacheExpireAfterWrite;
    }

    /** The prefix of bucket keys. */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** How callers are identified, in order: {@code api-key}, {@code principal}. */
    public List<String> caller() {
        return caller;
    }

    /** The cache time of an application's customer directory. */
    public Duration customersTtl() {
        return customersTtl;
    }

    /** The cache size of an application's customer directory. */
    public long customersMaxEntries() {
        return customersMaxEntries;
    }

    /** The admin API's token and where it came from, or null: no admin API. */
    public @Nullable AdminToken adminToken() {
        return adminToken;
    }

    /** Where buckets are kept. */
    public enum Store {
        /** Redis through {@code quota-redis}: shared by every instance. */
        REDIS,
        /** The server's JCache ({@code javax.cache.CacheManager} bean) through {@code quota-jcache}. */
        JCACHE,
        /** In this JVM: each instance enforces the whole limit on its own. */
        MEMORY
    }

    /**
     * The admin API's bearer token, read from a file or the environment. Its {@code toString} names
     * where it came from, never the token.
     *
     * @param source {@code quota.admin.token-file /run/secrets/quota} or the environment variable
     * @param token  the token, checked to be strong
     */
    public record AdminToken(String source, String token) {
        @Override
        public String toString() {
            return "admin token from " + source;
        }
    }

    /**
     * Reads and checks every setting.
     *
     * @throws InvalidSettingsException listing every bad setting, each by name
     */
    public static QuotaSettings read(SettingsSource source) {
        List<String> problems = new ArrayList<>();
        unknownNames(source, problems);
        String plans = text(source, PLANS, "classpath:plans.yaml");
        if (!plans.startsWith(CLASSPATH)) {
            try {
                Path unused = Path.of(plans); // only to refuse what is not a path
            } catch (InvalidPathException e) {
                problems.add(PLANS + ": \"" + plans + "\" is not a file path (" + e.getReason() + ")");
            }
        } else if (plans.length() == CLASSPATH.length()) {
            problems.add(PLANS + ": classpath: needs a resource name, such as classpath:plans.yaml");
        }
        Duration reload = duration(source, RELOAD, "500ms", true, problems);
        Store store = store(source, problems);
        String redisUri = source.get(REDIS_URI);
        if (redisUri != null) {
            redisUri = redisUri.trim();
        }
        if (store == Store.REDIS) {
            if (redisUri == null || redisUri.isEmpty()) {
                problems.add(REDIS_URI + ": required with quota.store=redis (redis://host:6379 or rediss://...)");
            } else if (!redisUri.startsWith("redis://") && !redisUri.startsWith("rediss://")) {
                problems.add(REDIS_URI + ": must start with redis:// or rediss:// but was \"" + clip(redisUri) + "\"");
            }
        }
        Duration redisTimeout = duration(source, REDIS_TIMEOUT, "2s", false, problems);
        int retryBudget = (int) Math.min(Integer.MAX_VALUE, count(source, REDIS_RETRY_BUDGET, 1_000, problems));
        String cache = text(source, JCACHE_CACHE, "quota-buckets");
        if (!CACHE_NAME.matcher(cache).matches()) {
            problems.add(JCACHE_CACHE + ": must be 1 to 128 of A-Z a-z 0-9 _ . - but was \"" + clip(cache) + "\"");
        }
        String jcacheMode = text(source, JCACHE_MODE, "compare-and-swap").toLowerCase(Locale.ROOT);
        if (!jcacheMode.equals("compare-and-swap") && !jcacheMode.equals("entry-processor")) {
            problems.add(JCACHE_MODE + ": unknown mode \"" + clip(jcacheMode)
                    + "\" (use compare-and-swap or entry-processor)");
        }
        int jcacheRetryBudget = (int) Math.min(Integer.MAX_VALUE, count(source, JCACHE_RETRY_BUDGET, 1_000, problems));
        Duration jcacheExpire = duration(source, JCACHE_EXPIRE, "25h", false, problems);
        String keyPrefix = text(source, KEY_PREFIX, "quota");
        if (!keyPrefix.matches("[A-Za-z0-9_.-]{1,32}")) {
            problems.add(KEY_PREFIX + ": must be 1 to 32 of A-Z a-z 0-9 _ . - but was \"" + clip(keyPrefix) + "\"");
        }
        List<String> caller = caller(source, problems);
        Duration ttl = duration(source, CUSTOMERS_TTL, "30s", false, problems);
        long maxEntries = count(source, CUSTOMERS_MAX, 100_000, problems);
        AdminToken token = adminToken(source, problems);
        if (!problems.isEmpty()) {
            throw new InvalidSettingsException(problems);
        }
        return new QuotaSettings(plans, reload, store, store == Store.REDIS ? redisUri : null, redisTimeout, retryBudget, cache,
                jcacheMode, jcacheRetryBudget, jcacheExpire,
                keyPrefix, caller, ttl, maxEntries, token);
    }

    /** Whether the plans file is a path on disk (and so can be reloaded), not a resource of the application. */
    public boolean plansOnDisk() {
        return !plans.startsWith(CLASSPATH);
    }

    private static void unknownNames(SettingsSource source, List<String> problems) {
        Set<String> unknown = new TreeSet<>();
        for (String name : source.names()) {
            if (name.equals(ADMIN_TOKEN)) {
                if (!fromEnvironment(source, ADMIN_TOKEN, ADMIN_TOKEN_ENV)) {
                    problems.add(ADMIN_TOKEN + ": not accepted, a property shows in logs and to every local user"
                            + " (ps); use " + ADMIN_TOKEN_FILE + " or the environment variable " + ADMIN_TOKEN_ENV);
                }
            } else if (name.startsWith("quota.") && !NAMES.contains(name)) {
                unknown.add(name);
            }
        }
        for (String name : unknown) {
            String close = Suggestions.closest(name, new TreeSet<>(NAMES));
            problems.add(name + ": unknown setting" + (close != null ? " (did you mean " + close + "?)"
                    : " (known: " + String.join(", ", new TreeSet<>(NAMES)) + ")"));
        }
    }

    private static String text(SettingsSource source, String name, String defaultValue) {
        String value = source.get(name);
        return value == null || value.isBlank() ? defaultValue : value.trim();
    }

    private static Store store(SettingsSource source, List<String> problems) {
        String value = text(source, STORE, "memory");
        try {
            return Store.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            problems.add(STORE + ": unknown store \"" + clip(value) + "\" (use redis, jcache or memory)");
            return Store.MEMORY;
        }
    }

    private static List<String> caller(SettingsSource source, List<String> problems) {
        String value = text(source, CALLER, "api-key");
        List<String> out = new ArrayList<>();
        // limit 0: trailing empty parts are dropped ("api-key," reads as api-key), as it has always read
        for (String part : value.split(",", 0)) {
            String kind = part.trim().toLowerCase(Locale.ROOT);
            if (!kind.equals("api-key") && !kind.equals("principal")) {
                problems.add(CALLER + ": unknown caller \"" + clip(part.trim())
                        + "\" (use api-key, principal, or both in order: principal,api-key)");
            } else if (out.contains(kind)) {
                problems.add(CALLER + ": \"" + kind + "\" is named twice");
            } else {
                out.add(kind);
            }
        }
        return out;
    }

    /**
     * A duration in the config file's grammar ({@link Durations}: {@code 500ms}, {@code 30s},
     * {@code 5m}, {@code 1h}, {@code 1d}); besides it a plain {@code 0}, where {@code zeroAllowed}
     * (it turns the setting off).
     */
    static Duration duration(SettingsSource source, String name, String defaultValue, boolean zeroAllowed,
                             List<String> problems) {
        String value = text(source, name, defaultValue);
        if (value.equals("0")) {
            if (zeroAllowed) {
                return Duration.ZERO;
            }
            problems.add(name + ": must be more than 0");
            return Duration.ofSeconds(1);
        }
        try {
            return Durations.parse(value, text -> "\"" + clip(text) + "\"");
        } catch (IllegalArgumentException e) {
            problems.add(name + ": " + e.getMessage());
            return Duration.ofSeconds(1);
        }
    }

    private static long count(SettingsSource source, String name, long defaultValue, List<String> problems) {
        String value = text(source, name, Long.toString(defaultValue));
        try {
            long n = Long.parseLong(value);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        problems.add(name + ": must be a whole number >= 1 but was \"" + clip(value) + "\"");
        return defaultValue;
    }

    private static @Nullable AdminToken adminToken(SettingsSource source, List<String> problems) {
        String file = source.get(ADMIN_TOKEN_FILE);
        if (file != null && !file.isBlank()) {
            try {
                Path path = Path.of(file.trim());
                return new AdminToken(ADMIN_TOKEN_FILE + " " + path, AdminTokens.fromFile(path));
            } catch (InvalidPathException e) {
                problems.add(ADMIN_TOKEN_FILE + ": \"" + clip(file) + "\" is not a file path");
            } catch (IllegalArgumentException e) {
                problems.add(ADMIN_TOKEN_FILE + ": " + e.getMessage());
            }
            return null;
        }
        String fromEnv = source.environment(ADMIN_TOKEN_ENV);
        if (fromEnv == null || fromEnv.isEmpty()) {
            return null;
        }
        try {
            AdminTokens.requireStrong(fromEnv);
        } catch (IllegalArgumentException e) {
            problems.add(ADMIN_TOKEN_ENV + " (environment variable): " + e.getMessage());
            return null;
        }
        return new AdminToken("the environment variable " + ADMIN_TOKEN_ENV, fromEnv);
    }

    /**
     * Whether the setting {@code name} is only the environment variable {@code variable} seen under
     * its MicroProfile Config name, as Quarkus lists {@code QUOTA_ADMIN_TOKEN}: the same value.
     */
    private static boolean fromEnvironment(SettingsSource source, String name, String variable) {
        String value = source.get(name);
        return value != null && value.equals(source.environment(variable));
    }

    /** A setting's value in a message, cut to 80 characters. */
    private static String clip(String value) {
        return value.length() <= 80 ? value : value.substring(0, 80) + "...";
    }
}
