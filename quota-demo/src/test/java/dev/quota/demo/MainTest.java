package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.quota.jaxrs.admin.AdminTokens;
import dev.quota.testkit.RedisServer;
import dev.quota.testkit.RespClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What the command line does, through {@link Main#launch}, which returns instead of exiting. */
class MainTest {

    private static final String BANNER_TOKEN = "banner-token-0123456789abcdef-GHIJKL";

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private Main.Launch launch(Map<String, String> env, String... args) {
        return Main.launch(args, env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void badConfigFile_exits2AndPrintsEveryErrorWithItsPath() {
        String file = Configs.file("broken.yaml").toString();

        Main.Launch launch = launch(Map.of(), "--config", file, "--port", "0");

        assertThat(launch.app()).isNull();
        assertThat(launch.exitCode()).isEqualTo(2);
        assertThat(err().lines()).containsExactly(
                "quota-demo: invalid config " + file + " (5 errors):",
                "  plans.free.limits[0].capacity: must be >= 1 but was 0",
                "  plans.free.limits[1].window: must be one of hour, day, week, month but was \"fortnight\"",
                "  plans.pro: unknown key \"limts\" (did you mean \"limits\"?)",
                "  plans.pro: missing required key \"limits\"",
                "  customers.ACME.plan: unknown plan \"gold\" (known: free, pro)");
        assertThat(out()).isEmpty();
    }

    @Test
    void missingConfigFile_exits2WithoutAStackTrace() {
        Main.Launch launch = launch(Map.of(), "--config", "/no/such/plans.yaml");

        assertThat(launch.exitCode()).isEqualTo(2);
        assertThat(err()).startsWith("quota-demo: cannot read config /no/such/plans.yaml: NoSuchFileException")
                .doesNotContain("\tat ");
    }

    @Test
    void unknownOption_exits2WithUsageOnStderr() {
        Main.Launch launch = launch(Map.of(), "--prot", "8080");

        assertThat(launch.exitCode()).isEqualTo(2);
        assertThat(err()).startsWith("quota-demo: unknown option \"--prot\"\nusage: java -jar quota-demo.jar");
        assertThat(out()).isEmpty();
    }

    @Test
    void help_exits0WithUsageOnStdout() {
        Main.Launch launch = launch(Map.of(), "--help");

        assertThat(launch.app()).isNull();
        assertThat(launch.exitCode()).isZero();
        assertThat(out()).startsWith("usage: java -jar quota-demo.jar").contains("--instances N");
        assertThat(err()).isEmpty();
    }

    @Test
    void unreachableRedis_exits1WithAClearMessage() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }

        Main.Launch launch = launch(Map.of(), "--redis", "redis://127.0.0.1:" + closedPort, "--port", "0");

        assertThat(launch.app()).isNull();
        assertThat(launch.exitCode()).isEqualTo(1);
        assertThat(err()).startsWith("quota-demo: cannot reach Redis at redis://127.0.0.1:" + closedPort + " (")
                .doesNotContain("\tat ");
    }

    @Test
    void redisFromEnvironment_isUsedAndNotStopped() {
        try (RedisServer redis = RedisServer.start()) {
            Main.Launch launch = launch(Map.of("QUOTA_REDIS_URL", redis.uri()), "--port", "0");
            try (DemoApp app = launch.app()) {
                assertThat(app).isNotNull();
                assertThat(out()).contains("quota-demo: store = redis standalone " + redis.uri() + "\n");
            }
            assertThat(redis.isRunning()).as("a Redis the demo did not start stays up").isTrue();
        }
    }

    @Test
    void noRedisGiven_startsAPrivateServerAndStopsItOnClose() {
        Main.Launch launch = launch(Map.of(), "--port", "0", "--instances", "2");
        String uri;
        try (DemoApp app = launch.app()) {
            assertThat(app).isNotNull();
            assertThat(app.ownsRedis()).isTrue();
            uri = app.redisUri();
            assertThat(out()).contains("quota-demo: store = redis standalone " + uri
                            + " (private server started by the demo)\n")
                    .contains("quota-demo: instance 1 of 2 at " + app.baseUris().get(0) + "api/v1\n")
                    .contains("quota-demo: instance 2 of 2 at " + app.baseUris().get(1) + "api/v1\n")
                    .contains("  demo-free-key        customer ACME-FREE    plan free\n")
                    .contains("  demo-sav2001-key     customer SAV2001      plan pro x2\n");
            HttpResponse<String> response = Http.get(app.baseUris().get(1).resolve("api/v1/accounts/ACC-2001"),
                    "X-API-Key", "demo-pro-key");
            assertThat(response.statusCode()).isEqualTo(200);
        }
        int port = Integer.parseInt(uri.substring(uri.lastIndexOf(':') + 1));
        assertThat(canConnect(port)).as("private redis-server on port %d stopped", port).isFalse();
    }

    @Test
    void banner_withAdminTokenAndConfigFile_saysAdminAndReloadAreOn() {
        try (RedisServer redis = RedisServer.start()) {
            Main.Launch launch = launch(Map.of("QUOTA_REDIS_URL", redis.uri(), "QUOTA_ADMIN_TOKEN",
                    BANNER_TOKEN), "--port", "0", "--config", Configs.file("shared-30.yaml").toString());
            try (DemoApp app = launch.app()) {
                assertThat(app).isNotNull();
                URI base = app.baseUris().get(0);
                URI management = app.managementUris().get(0);
                assertThat(management.getHost()).isEqualTo("127.0.0.1");
                assertThat(management.getPort()).isNotEqualTo(base.getPort());
                assertThat(out()).contains("quota-demo: config reload = on: the file is checked every 500 ms;")
                        .contains("quota-demo: store outage = a circuit breaker opens after 5 failed calls")
                        .contains("quota-demo: metrics = " + management + "metrics (127.0.0.1 only, not on the API"
                                + " port; Prometheus text, not limited)\n")
                        .contains("quota-demo: admin = on at " + base + "admin on each instance (header Authorization:"
                                + " Bearer <token>; token from QUOTA_ADMIN_TOKEN)\n")
                        .doesNotContain(BANNER_TOKEN);
            }
        }
    }

    @Test
    void banner_withBundledConfigAndNoToken_saysAdminAndReloadAreOff() {
        try (RedisServer redis = RedisServer.start()) {
            Main.Launch launch = launch(Map.of("QUOTA_REDIS_URL", redis.uri()), "--port", "0");
            try (DemoApp app = launch.app()) {
                assertThat(app).isNotNull();
                assertThat(out()).contains("quota-demo: config reload = off: the bundled classpath config has no"
                                + " file to watch (use --config FILE)\n")
                        .contains("quota-demo: admin = off (--admin turns it on with a generated token; or set"
                                + " QUOTA_ADMIN_TOKEN, or --admin-token-file FILE)\n");
                assertThat(Http.get(app.baseUris().get(0).resolve("admin/config")).statusCode())
                        .as("no admin API without a token").isEqualTo(404);
            }
        }
    }

    @Test
    void admin_withoutAToken_generatesOneIntoAnOwnerOnlyFile_andPrintsItsPathNeverTheToken() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            Main.Launch launch = launch(Map.of("QUOTA_REDIS_URL", redis.uri()), "--port", "0", "--admin");
            try (DemoApp app = launch.app()) {
                assertThat(app).isNotNull();
                Matcher banner = Pattern.compile("admin = on at \\S+ on each instance \\(header Authorization: Bearer"
                        + " <token>; generated token in (\\S+), readable by you only, deleted on exit\\)").matcher(out());
                assertThat(banner.find()).as(out()).isTrue();
                Path file = Path.of(banner.group(1));
                String token = Files.readString(file).strip();

                assertThatCode(() -> AdminTokens.requireStrong(token)).doesNotThrowAnyException();
                assertThat(out()).doesNotContain(token);
                if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
                }
                assertThat(Http.get(app.baseUris().get(0).resolve("admin/config"), "Authorization", "Bearer " + token)
                        .statusCode()).isEqualTo(200);
            }
        }
    }

    @Test
    void adminTokenOnTheCommandLine_exits2() {
        Main.Launch launch = launch(Map.of(), "--admin-token", BANNER_TOKEN);

        assertThat(launch.exitCode()).isEqualTo(2);
        assertThat(err()).startsWith("quota-demo: --admin-token is not accepted").doesNotContain(BANNER_TOKEN);
    }

    private static boolean canConnect(int port) {
        try (RespClient client = RespClient.connect("127.0.0.1", port, Duration.ofMillis(500))) {
            return "PONG".equals(client.command("PING"));
        } catch (RuntimeException e) {
            return false;
        }
    }
}
