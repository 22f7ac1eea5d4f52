package dev.quota.demo;

import java.nio.file.Path;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The command line of the demo, parsed and checked.
 *
 * @param host      the address the HTTP servers bind to; default {@code 127.0.0.1}
 * @param port      the first instance's port; instance {@code i} (from 0) listens on {@code port + i}.
 *                  Default 8080; 0 gives every instance a free port of its own
 * @param config    the quota config file, or null for the bundled {@code plans.yaml}
 * @param redis     the Redis to use ({@code --redis}, else {@code QUOTA_REDIS_URL}), or null to start
 *                  a private redis-server
 * @param instances how many HTTP servers to start, each with its own quota service and Redis
 *                  client; default 1, at most {@value #MAX_INSTANCES}
 * @param redisTimeoutMillis how long one Redis command may take; default {@value #DEFAULT_REDIS_TIMEOUT_MILLIS}
 * @param adminToken the bearer token of the admin API at {@code /admin} ({@code --admin-token}, else
 *                  {@code QUOTA_ADMIN_TOKEN}), or null to leave the admin API off
 * @param help      whether {@code --help} was given (the other values are then the defaults)
 */
record Options(String host, int port, @Nullable Path config, @Nullable String redis, int instances,
               int redisTimeoutMillis, @Nullable String adminToken, boolean help) {

    /** The environment variable read when {@code --redis} is not given. */
    static final String REDIS_ENV = "QUOTA_REDIS_URL";
    /** The environment variable read when {@code --admin-token} is not given. */
    static final String ADMIN_TOKEN_ENV = "QUOTA_ADMIN_TOKEN";
    /** The shortest admin token accepted, as the admin API requires: 16. */
    static final int MIN_ADMIN_TOKEN_LENGTH = 16;
    static final int DEFAULT_PORT = 8080;
    static final int MAX_INSTANCES = 16;
    /**
     * 1 s, ten times the library's default: the demo shares a small machine with its Redis and
     * starts cold, and the first commands of a fresh JVM (the connection's PING among them) take
     * longer than 100 ms there.
     */
    static final int DEFAULT_REDIS_TIMEOUT_MILLIS = 1000;

    static final String USAGE = """
            usage: java -jar quota-demo.jar [options]

              --port N            first HTTP port; instance i listens on N+i (default 8080; 0 = free ports)
              --host ADDRESS      address to bind (default 127.0.0.1; 0.0.0.0 for every interface)
              --config FILE       quota config YAML (default: the bundled plans.yaml)
              --redis URI         redis://host:port or rediss://... (default: $QUOTA_REDIS_URL,
                                  else a private redis-server started for the demo and stopped with it)
              --instances N       HTTP servers to start, each with its own quota service and Redis
                                  client, all sharing one Redis (default 1, at most 16)
              --redis-timeout MS  how long one Redis command may take (default 1000)
              --admin-token T     turn on the admin API at /admin for Authorization: Bearer T; 16 to 256
                                  visible ASCII characters (default: $QUOTA_ADMIN_TOKEN, else off)
              --help              print this and exit

            exit codes: 0 stopped normally, 1 could not start (Redis unreachable, port taken), 2 bad
            options or config
            """;

    /**
     * Parses {@code --name value} and {@code --name=value} options.
     *
     * @param env the environment, for {@value #REDIS_ENV} and {@value #ADMIN_TOKEN_ENV}
     * @throws UsageException naming the first bad option
     */
    static Options parse(String[] args, Map<String, String> env) {
        String host = "127.0.0.1";
        int port = DEFAULT_PORT;
        Path config = null;
        String redis = null;
        int instances = 1;
        int redisTimeout = DEFAULT_REDIS_TIMEOUT_MILLIS;
        String adminToken = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                return new Options(host, DEFAULT_PORT, null, null, 1, DEFAULT_REDIS_TIMEOUT_MILLIS, null, true);
            }
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (!name.equals("--port") && !name.equals("--host") && !name.equals("--config")
                    && !name.equals("--redis") && !name.equals("--instances") && !name.equals("--redis-timeout")
                    && !name.equals("--admin-token")) {
                throw new UsageException("unknown option " + quote(arg));
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new UsageException(name + " needs a value");
                }
                value = args[++i];
            }
            switch (name) {
                case "--port":
                    port = integer(name, value, 0, 65_535);
                    break;
                case "--host":
                    host = requireNonBlank(name, value);
                    break;
                case "--config":
                    config = Path.of(requireNonBlank(name, value));
                    break;
                case "--redis":
                    redis = redisUri(name, value);
                    break;
                case "--redis-timeout":
                    redisTimeout = integer(name, value, 1, 60_000);
                    break;
                case "--admin-token":
                    adminToken = adminToken(name, value);
                    break;
                default:
                    instances = integer(name, value, 1, MAX_INSTANCES);
                    break;
            }
        }
        if (redis == null) {
            String fromEnv = env.get(REDIS_ENV);
            if (fromEnv != null && !fromEnv.isBlank()) {
                redis = redisUri(REDIS_ENV, fromEnv.trim());
            }
        }
        if (adminToken == null) {
            String fromEnv = env.get(ADMIN_TOKEN_ENV);
            if (fromEnv != null && !fromEnv.isEmpty()) {
                adminToken = adminToken(ADMIN_TOKEN_ENV, fromEnv);
            }
        }
        if (port != 0 && port + instances - 1 > 65_535) {
            throw new UsageException("--port " + port + " with --instances " + instances + " needs ports up to "
                    + (port + instances - 1) + ", above 65535");
        }
        return new Options(host, port, config, redis, instances, redisTimeout, adminToken, false);
    }

    /** A token the admin API accepts; the message gives its length, never the token. */
    private static String adminToken(String name, String value) {
        boolean visibleAscii = value.chars().allMatch(c -> c > 0x20 && c < 0x7f);
        if (value.length() < MIN_ADMIN_TOKEN_LENGTH || value.length() > 256 || !visibleAscii) {
            throw new UsageException(name + " must be " + MIN_ADMIN_TOKEN_LENGTH
                    + " to 256 visible ASCII characters but was " + value.length() + " characters long");
        }
        return value;
    }

    /** As a record's, but the admin token is shown as {@code ***}: options end up in logs. */
    @Override
    public String toString() {
        return "Options[host=" + host + ", port=" + port + ", config=" + config + ", redis=" + redis + ", instances="
                + instances + ", redisTimeoutMillis=" + redisTimeoutMillis + ", adminToken="
                + (adminToken == null ? null : "***") + ", help=" + help + "]";
    }

    private static int integer(String name, String value, int min, int max) {
        int parsed;
        try {
            parsed = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new UsageException(name + " must be an integer but was " + quote(value));
        }
        if (parsed < min || parsed > max) {
            throw new UsageException(name + " must be between " + min + " and " + max + " but was " + parsed);
        }
        return parsed;
    }

    private static String redisUri(String name, String value) {
        if (!value.startsWith("redis://") && !value.startsWith("rediss://")) {
            throw new UsageException(name + " must start with redis:// or rediss:// but was " + quote(value));
        }
        return value;
    }

    private static String requireNonBlank(String name, String value) {
        if (value.isBlank()) {
            throw new UsageException(name + " must not be empty");
        }
        return value;
    }

    private static String quote(String value) {
        return "\"" + value + "\"";
    }

    /** A command line that cannot be used; its message says why, for a line above the usage. */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }
}
