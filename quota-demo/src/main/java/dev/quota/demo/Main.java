package dev.quota.demo;

import dev.quota.core.Customer;
import dev.quota.core.QuotaConfig;
import dev.quota.core.QuotaService;
import dev.quota.core.QuotaStoreException;
import dev.quota.core.config.ConfigError;
import dev.quota.core.config.InvalidConfigException;
import dev.quota.core.config.QuotaConfigLoader;
import dev.quota.jaxrs.admin.AdminTokens;
import jakarta.ws.rs.ProcessingException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.jspecify.annotations.Nullable;

/**
 * Runs the demo bank API: {@code java -jar quota-demo.jar [--port 8080] [--instances 3]
 * [--redis redis://host:6379] [--config plans.yaml] [--admin] [--admin-token-file FILE]}. Without a
 * Redis it starts a private redis-server and stops it on exit (Ctrl-C, SIGTERM). A {@code --config}
 * file is reloaded when it changes. The admin token never comes from the command line: from
 * {@code QUOTA_ADMIN_TOKEN}, a file, or generated into a new owner-only file.
 */
public final class Main {

    /** The process stopped normally. */
    static final int OK = 0;
    /** The demo could not start: Redis unreachable, a port taken. */
    static final int FAILED = 1;
    /** Bad options or a bad config file. */
    static final int USAGE = 2;

    private static final String PREFIX = "quota-demo: ";
    private static final String BUNDLED_CONFIG = "plans.yaml";

    static {
        // Jersey logs through java.util.logging: one line per message, like slf4j-simple.
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT.%1$tL %4$s %3$s - %5$s%6$s%n");
        }
    }

    /** Held so that the levels set in {@link #main} are not garbage collected with their loggers. */
    private static final java.util.logging.Logger JERSEY_LOGS = java.util.logging.Logger.getLogger("org.glassfish");

    private Main() {
    }

    /** Starts the demo and keeps it running until the JVM is asked to stop. */
    public static void main(String[] args) throws InterruptedException {
        JERSEY_LOGS.setLevel(Level.WARNING);
        Launch launch = launch(args, System.getenv(), System.out, System.err);
        if (launch.app() == null) {
            System.exit(launch.exitCode());
            return;
        }
        DemoApp app = launch.app();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println(PREFIX + "stopping");
            app.close();
            System.out.println(PREFIX + "stopped");
        }, "quota-demo-shutdown"));
        app.awaitClosed();
    }

    /**
     * Does everything {@link #main} does up to a running app, printing to {@code out} and
     * {@code err} instead of exiting.
     *
     * @param env the environment ({@code QUOTA_REDIS_URL}, {@code QUOTA_ADMIN_TOKEN})
     * @return the running app, or the exit code when the demo cannot or need not run
     */
    static Launch launch(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = Options.parse(args, env);
        } catch (Options.UsageException e) {
            err.println(PREFIX + e.getMessage());
            err.print(Options.USAGE);
            return Launch.exit(USAGE);
        }
        if (options.help()) {
            out.print(Options.USAGE);
            return Launch.exit(OK);
        }
        QuotaConfig config;
        String source = options.config() == null ? "classpath:" + BUNDLED_CONFIG : options.config().toString();
        try {
            config = loadConfig(options, source);
        } catch (InvalidConfigException e) {
            err.println(PREFIX + "invalid config " + source + " (" + e.errors().size()
                    + (e.errors().size() == 1 ? " error):" : " errors):"));
            for (ConfigError error : e.errors()) {
                err.println("  " + error);
            }
            return Launch.exit(USAGE);
        } catch (UncheckedIOException e) {
            err.println(PREFIX + "cannot read config " + source + ": " + describe(e.getCause()));
            return Launch.exit(USAGE);
        }
        for (String warning : config.warnings()) {
            err.println(PREFIX + "config warning: " + warning);
        }
        Options.AdminToken adminToken = options.adminToken();
        String adminNote = adminToken == null ? null : "token from " + adminToken.source();
        if (options.admin() && adminToken == null) {
            try {
                String token = AdminTokens.generate();
                Path file = AdminTokenFile.create(token);
                adminToken = new Options.AdminToken(token, file.toString());
                adminNote = "generated token in " + file + ", readable by you only, deleted on exit";
            } catch (UncheckedIOException e) {
                err.println(PREFIX + "cannot write the generated admin token: " + describe(e.getCause()));
                return Launch.exit(FAILED);
            }
        }
        DemoApp app;
        try {
            app = DemoApp.start(new DemoApp.Settings(config, options.redis(), options.host(), options.port(),
                    options.instances(), Duration.ofMillis(options.redisTimeoutMillis()), Clock.systemUTC(),
                    options.config(), adminToken == null ? null : adminToken.value(), options.managementPort()));
        } catch (QuotaStoreException e) {
            err.println(PREFIX + "cannot reach Redis at " + (options.redis() == null ? "the private server"
                    : options.redis()) + " (" + rootMessage(e) + ")");
            err.println(PREFIX + "start one (redis-server) or leave out --redis and " + Options.REDIS_ENV
                    + " to let the demo start a private one");
            return Launch.exit(FAILED);
        } catch (ProcessingException e) {
            err.println(PREFIX + "cannot start the HTTP server: " + e.getMessage() + "; try another --port");
            return Launch.exit(FAILED);
        } catch (IllegalStateException | UncheckedIOException e) {
            // the private redis-server did not come up
            err.println(PREFIX + "cannot start a private redis-server: " + e.getMessage());
            return Launch.exit(FAILED);
        }
        banner(app, config, source, options.config() != null, adminNote, out);
        return new Launch(app, OK);
    }

    private static QuotaConfig loadConfig(Options options, String source) {
        if (options.config() != null) {
            return QuotaConfigLoader.load(options.config());
        }
        try (InputStream in = Main.class.getClassLoader().getResourceAsStream(BUNDLED_CONFIG)) {
            if (in == null) {
                throw new UncheckedIOException(new IOException(BUNDLED_CONFIG + " is missing from the classpath"));
            }
            return QuotaConfigLoader.parse(in, source);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void banner(DemoApp app, QuotaConfig config, String source, boolean watched,
                               @Nullable String adminNote, PrintStream out) {
        out.println(PREFIX + "config = " + source + " (plans " + String.join(", ", config.plans().keySet().stream()
                .sorted().toList()) + ")");
        out.println(PREFIX + (watched ? "config reload = on: the file is checked every 500 ms; an edit applies"
                + " without a restart, a bad one is logged and ignored"
                : "config reload = off: the bundled classpath config has no file to watch (use --config FILE)"));
        out.println(PREFIX + "store = " + app.storeDescription()
                + (app.ownsRedis() ? " (private server started by the demo)" : ""));
        out.println(PREFIX + "store outage = a circuit breaker opens after 5 failed calls (each refused 503); once Redis"
                + " then fails a ping, each limit's onStoreFailure answers until Redis answers again (checked every 250 ms)");
        List<URI> uris = app.baseUris();
        for (int i = 0; i < uris.size(); i++) {
            out.println(PREFIX + "instance " + (i + 1) + " of " + uris.size() + " at " + uris.get(i) + "api/v1");
        }
        List<URI> management = app.managementUris();
        out.println(PREFIX + "metrics = " + String.join(", ", management.stream().map(u -> u + "metrics").toList())
                + (management.size() == 1 ? " (" : " (one per instance; ")
                + "127.0.0.1 only, not on the API port; Prometheus text, not limited)");
        out.println(PREFIX + (app.adminEnabled()
                ? "admin = on at " + uris.get(0) + "admin on each instance (header Authorization: Bearer <token>; "
                        + adminNote + ")"
                : "admin = off (--admin turns it on with a generated token; or set " + Options.ADMIN_TOKEN_ENV
                        + ", or --admin-token-file FILE)"));
        QuotaService service = app.services().get(0);
        String header = config.identity().header();
        boolean any = false;
        for (String key : DemoKeys.ALL) {
            Customer customer = service.customerForApiKey(key);
            if (customer != null) {
                if (!any) {
                    out.println(PREFIX + "API keys (header " + header + "):");
                    any = true;
                }
                out.printf("  %-20s customer %-12s plan %s%s%n", key, customer.id(), customer.plan(),
                        customer.multiplier() == 1.0 ? "" : " x" + formatMultiplier(customer.multiplier()));
            }
        }
        URI first = uris.get(0);
        out.println(PREFIX + "try: curl -i " + (any ? "-H '" + header + ": demo-free-key' " : "")
                + first + "api/v1/accounts/ACC-1001");
        out.println(PREFIX + "Ctrl-C stops the demo" + (app.ownsRedis() ? " and its Redis" : ""));
        out.flush();
    }

    private static String formatMultiplier(double multiplier) {
        return multiplier == Math.rint(multiplier) ? Long.toString((long) multiplier) : Double.toString(multiplier);
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return describe(root);
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + ": " + message;
    }

    /**
     * The outcome of {@link #launch}.
     *
     * @param app      the running app, or null when the process should exit
     * @param exitCode the exit code when {@code app} is null
     */
    record Launch(@Nullable DemoApp app, int exitCode) {
        static Launch exit(int code) {
            return new Launch(null, code);
        }
    }
}
