package dev.quota.demo;

import dev.quota.jaxrs.admin.AdminTokens;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The command line of the demo, parsed and checked.
 *
 * @param host      the address the HTTP servers bind to; default {@code 127.0.0.1}
 * @param port      the first instance's port; instance {@code i} (from 0) listens on {@code port + i}.
 *                  Default 8080; 0 gives every instance a free port of its own
 * @param managementPort the first instance's metrics port on 127.0.0.1; instance {@code i} uses
 *                  {@code managementPort + i}. Default {@code port + 1000} (9080); 0, a free port
 *                  for each, when {@code port} is 0 or when {@code port + 1000} would pass 65535
 * @param config    the quota config file, or null for the bundled {@code plans.yaml}
 * @param redis     the Redis to use ({@code --redis}, else {@code QUOTA_REDIS_URL}), or null to start
 *                  a private redis-server
 * @param instances how many HTTP servers to start, each with its own quota service and Redis
 *                  client; default 1, at most {@value #MAX_INSTANCES}
 * @param redisTimeoutMillis how long one Redis command may take; default {@value #DEFAULT_REDIS_TIMEOUT_MILLIS}
 * @param adminToken the admin API's bearer token and where it came from ({@code --admin-token-file},
 *                  else {@code QUOTA_ADMIN_TOKEN}), or null
 * @param admin     whether to serve the admin API at {@code /admin}: {@code --admin}, or a token was
 *                  given; with {@code --admin} and no token one is generated ({@link Main})
 * @param help      whether {@code --help} was given (the other values are then the defaults)
 */
record Options(String host, int port, int managementPort, @Nullable Path config, @Nullable String redis,
               int instances, int redisTimeoutMillis, @Nullable AdminToken adminToken, boolean admin,
               boolean help) {

    /** The environment variable read when {@code --redis} is not given. */
    static final String REDIS_ENV = "QUOTA_REDIS_URL";
    /** The environment variable read when {@code --admin-token-file} is not given. */
    static final String ADMIN_TOKEN_ENV = "QUOTA_ADMIN_TOKEN";
    static final int DEFAULT_PORT = 8080;
    /** The management port is the API port plus this, by default: 8080 gives 9080. */
    static final int MANAGEMENT_PORT_OFFSET = 1000;
    static final int MAX_INSTANCES = 16;
    /** The library's default, 2 s: {@code RedisStoreBuilder.DEFAULT_TIMEOUT}. */
    static final int DEFAULT_REDIS_TIMEOUT_MILLIS = 2000;

    private static final List<String> WITH_VALUE = List.of("--port", "--host", "--config", "--redis", "--instances",
            "--redis-timeout", "--management-port", "--admin-token-file");

    static final String USAGE = """
            usage: java -jar quota-demo.jar [options]

              --port N            first HTTP port; instance i listens on N+i (default 8080; 0 = free ports)
              --host ADDRESS      address to bind (default 127.0.0.1; 0.0.0.0 for every interface)
              --management-port N first metrics port, on 127.0.0.1 only; instance i uses N+i (default:
                                  --port + 1000, so 9080; a free port when --port is 0)
              --config FILE       quota config YAML (default: the bundled plans.yaml)
              --redis URI         redis://host:port or rediss://... (default: $QUOTA_REDIS_URL,
                                  else a private redis-server started for the demo and stopped with it)
              --instances N       HTTP servers to start, each with its own quota service and Redis
                                  client, all sharing one Redis (default 1, at most 16)
              --redis-timeout MS  how long one Redis command may take (default 2000)
              --admin             turn on the admin API at /admin; without a token, one is generated and
                                  written to a new file only you can read, whose path is printed
              --admin-token-file FILE
                                  turn on the admin API with the token in FILE (mode 600: not readable
                                  by group or others); default: $QUOTA_ADMIN_TOKEN. A token has 32 to
                                  256 visible ASCII characters, 10 different ones and about 128 bits
                                  (openssl rand -hex 32 makes one)
              --help              print this and exit

            exit codes: 0 stopped normally, 1 could not start (Redis unreachable, port taken), 2 bad
            options or config
            """;

    /**
     * Parses {@code --name value} and {@code --name=value} options; reads the token file.
     *
     * @param env the environment, for {@value #REDIS_ENV} and {@value #ADMIN_TOKEN_ENV}
     * @throws UsageException naming the first bad option
     */
    static Options parse(String[] args, Map<String, String> env) {
        String host = "127.0.0.1";
        int port = DEFAULT_PORT;
        Integer managementPort = null;
        Path config = null;
        String redis = null;
        int instances = 1;
        int redisTimeout = DEFAULT_REDIS_TIMEOUT_MILLIS;
        Path adminTokenFile = null;
        boolean admin = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                return new Options(host, DEFAULT_PORT, DEFAULT_PORT + MANAGEMENT_PORT_OFFSET, null, null, 1,
                        DEFAULT_REDIS_TIMEOUT_MILLIS, null, false, true);
            }
            if (arg.equals("--admin")) {
                admin = true;
                continue;
            }
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (name.equals("--admin-token")) {
                // said before the value is even looked at: it is in the shell history and in ps already
                throw new UsageException("--admin-token is not accepted: every local user can read a command line"
                        + " (ps); set " + ADMIN_TOKEN_ENV + ", or use --admin-token-file FILE, or --admin to"
                        + " have a token generated");
            }
            if (!WITH_VALUE.contains(name)) {
                throw new UsageException("unknown option " + quote(arg));
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new UsageException(name + " needs a value");
                }
                value = args[++i];
            }
            switch (name) {
                case "--port" -> port = integer(name, value, 0, 65_535);
                case "--host" -> host = requireNonBlank(name, value);
                case "--config" -> config = Path.of(requireNonBlank(name, value));
                case "--redis" -> redis = redisUri(name, value);
                case "--redis-timeout" -> redisTimeout = integer(name, value, 1, 60_000);
                case "--management-port" -> managementPort = integer(name, value, 0, 65_535);
                case "--admin-token-file" -> adminTokenFile = Path.of(requireNonBlank(name, value));
                default -> instances = integer(name, value, 1, MAX_INSTANCES);
            }
        }
        if (redis == null) {
            String fromEnv = env.get(REDIS_ENV);
            if (fromEnv != null && !fromEnv.isBlank()) {
                redis = redisUri(REDIS_ENV, fromEnv.trim());
            }
        }
        AdminToken adminToken = adminToken(adminTokenFile, env.get(ADMIN_TOKEN_ENV));
        if (port != 0 && port + instances - 1 > 65_535) {
            throw new UsageException("--port " + port + " with --instances " + instances + " needs ports up to "
                    + (port + instances - 1) + ", above 65535");
        }
        int management = managementPort != null ? managementPort : defaultManagementPort(port, instances);
        if (management != 0 && management + instances - 1 > 65_535) {
            throw new UsageException("--management-port " + management + " with --instances " + instances
                    + " needs ports up to " + (management + instances - 1) + ", above 65535");
        }
        if (management != 0 && port != 0 && management < port + instances && port < management + instances) {
            throw new UsageException("--management-port " + management + " overlaps the API ports " + port + " to "
                    + (port + instances - 1));
        }
        return new Options(host, port, management, config, redis, instances, redisTimeout, adminToken,
                admin || adminToken != null, false);
    }

    /** {@code port + 1000} for every instance when that fits, else 0: free ports. */
    private static int defaultManagementPort(int port, int instances) {
        if (port == 0 || port + MANAGEMENT_PORT_OFFSET + instances - 1 > 65_535) {
            return 0;
        }
        return port + MANAGEMENT_PORT_OFFSET;
    }

    /** From the file if one is named, else from the environment; checked, never echoed. */
    private static @Nullable AdminToken adminToken(@Nullable Path file, @Nullable String fromEnv) {
        if (file != null) {
            try {
                return new AdminToken(AdminTokens.fromFile(file), file.toString());
            } catch (IllegalArgumentException e) {
                throw new UsageException("--admin-token-file " + e.getMessage());
            }
        }
        if (fromEnv == null || fromEnv.isEmpty()) {
            return null;
        }
        try {
            AdminTokens.requireStrong(fromEnv);
        } catch (IllegalArgumentException e) {
            throw new UsageException(ADMIN_TOKEN_ENV + ": " + e.getMessage());
        }
        return new AdminToken(fromEnv, ADMIN_TOKEN_ENV);
    }

    /**
     * The admin token and where it came from, for the banner.
     *
     * @param value  the token
     * @param source {@value #ADMIN_TOKEN_ENV}, the file it was read from, or a generated file
     */
    record AdminToken(String value, String source) {
        /** Never the token: options end up in logs. */
        @Override
        public String toString() {
            return "AdminToken[value=***, source=" + source + "]";
        }
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
