package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OptionsTest {

    private static final String STRONG = "opt-token-0123456789abcdef-GHIJKL";

    @Test
    void parse_noArguments_givesTheDefaults() {
        Options options = Options.parse(new String[0], Map.of());

        assertThat(options).isEqualTo(new Options("127.0.0.1", 8080, 9080, null, null, 1, 2000, null, false, false));
    }

    @Test
    void parse_everyOption_inBothForms() {
        Options options = Options.parse(new String[] {"--port=9000", "--config", "my.yaml", "--redis=redis://h:1",
            "--instances", "3", "--host", "0.0.0.0", "--redis-timeout", "250"}, Map.of());

        assertThat(options).isEqualTo(new Options("0.0.0.0", 9000, 10_000, Path.of("my.yaml"), "redis://h:1", 3, 250,
                null, false, false));
    }

    @Test
    void parse_redisFromEnvironment_unlessGivenAsOption() {
        Map<String, String> env = Map.of("QUOTA_REDIS_URL", "redis://env:6379");

        assertThat(Options.parse(new String[0], env).redis()).isEqualTo("redis://env:6379");
        assertThat(Options.parse(new String[] {"--redis", "rediss://opt:6380"}, env).redis())
                .isEqualTo("rediss://opt:6380");
    }

    @Test
    void parse_badValues_nameTheOptionAndTheValue() {
        assertThatThrownBy(() -> Options.parse(new String[] {"--port", "http"}, Map.of()))
                .hasMessage("--port must be an integer but was \"http\"");
        assertThatThrownBy(() -> Options.parse(new String[] {"--instances", "0"}, Map.of()))
                .hasMessage("--instances must be between 1 and 16 but was 0");
        assertThatThrownBy(() -> Options.parse(new String[] {"--redis", "localhost:6379"}, Map.of()))
                .hasMessage("--redis must start with redis:// or rediss:// but was \"localhost:6379\"");
        assertThatThrownBy(() -> Options.parse(new String[0], Map.of("QUOTA_REDIS_URL", "127.0.0.1")))
                .hasMessage("QUOTA_REDIS_URL must start with redis:// or rediss:// but was \"127.0.0.1\"");
        assertThatThrownBy(() -> Options.parse(new String[] {"--port"}, Map.of()))
                .hasMessage("--port needs a value");
        assertThatThrownBy(() -> Options.parse(new String[] {"--port", "65535", "--instances", "2"}, Map.of()))
                .hasMessage("--port 65535 with --instances 2 needs ports up to 65536, above 65535");
    }

    @Test
    void managementPort_defaultsToPortPlus1000_freeWhenPortIsFree_orGivenExplicitly() {
        assertThat(Options.parse(new String[] {"--port", "8000"}, Map.of()).managementPort()).isEqualTo(9000);
        assertThat(Options.parse(new String[] {"--port", "0"}, Map.of()).managementPort()).isZero();
        assertThat(Options.parse(new String[] {"--port", "65000"}, Map.of()).managementPort()).isZero();
        assertThat(Options.parse(new String[] {"--management-port", "9999"}, Map.of()).managementPort())
                .isEqualTo(9999);
        assertThatThrownBy(() -> Options.parse(new String[] {"--port", "8080", "--instances", "3",
            "--management-port", "8082"}, Map.of()))
                .hasMessage("--management-port 8082 overlaps the API ports 8080 to 8082");
    }

    /** What broke: --admin-token put the token into ps output for every local user. */
    @Test
    void adminTokenOnTheCommandLine_isRefused_withoutLookingAtIt() {
        assertThatThrownBy(() -> Options.parse(new String[] {"--admin-token", STRONG}, Map.of()))
                .isInstanceOf(Options.UsageException.class)
                .hasMessage("--admin-token is not accepted: every local user can read a command line (ps); set"
                        + " QUOTA_ADMIN_TOKEN, or use --admin-token-file FILE, or --admin to have a token generated")
                .hasMessageNotContaining(STRONG);
        assertThatThrownBy(() -> Options.parse(new String[] {"--admin-token=" + STRONG}, Map.of()))
                .hasMessageStartingWith("--admin-token is not accepted");
    }

    @Test
    void adminToken_fromEnvironment_turnsTheAdminApiOn() {
        Options options = Options.parse(new String[0], Map.of("QUOTA_ADMIN_TOKEN", STRONG));

        assertThat(options.admin()).isTrue();
        assertThat(options.adminToken()).isEqualTo(new Options.AdminToken(STRONG, "QUOTA_ADMIN_TOKEN"));
        assertThat(Options.parse(new String[0], Map.of()).admin()).isFalse();
        assertThat(Options.parse(new String[] {"--admin"}, Map.of())).extracting(Options::admin, Options::adminToken)
                .containsExactly(true, null);
    }

    @Test
    void adminToken_weak_isAUsageErrorThatDoesNotEchoIt() {
        assertThatThrownBy(() -> Options.parse(new String[0], Map.of("QUOTA_ADMIN_TOKEN", "short-secret")))
                .isInstanceOf(Options.UsageException.class)
                .hasMessage("QUOTA_ADMIN_TOKEN: admin token must be 32 to 256 characters but was 12 characters long");
        assertThatThrownBy(() -> Options.parse(new String[0], Map.of("QUOTA_ADMIN_TOKEN", "has a space in it!")))
                .hasMessageStartingWith("QUOTA_ADMIN_TOKEN: admin token must be 32 to 256")
                .hasMessageNotContaining("space");
    }

    @Test
    void adminTokenFile_ownerOnly_isRead_andWinsOverTheEnvironment(@TempDir Path dir) throws IOException {
        Path file = ownerOnly(dir.resolve("admin.token"), STRONG + "\n");

        Options options = Options.parse(new String[] {"--admin-token-file", file.toString()},
                Map.of("QUOTA_ADMIN_TOKEN", "env-" + STRONG));

        assertThat(options.adminToken()).isEqualTo(new Options.AdminToken(STRONG, file.toString()));
        assertThat(options.admin()).isTrue();
    }

    @Test
    void adminTokenFile_readableByOthers_isRefusedWithAClearMessage(@TempDir Path dir) throws IOException {
        assumeTrue(posix(), "POSIX permissions");
        Path file = Files.writeString(dir.resolve("admin.token"), STRONG);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> Options.parse(new String[] {"--admin-token-file", file.toString()}, Map.of()))
                .isInstanceOf(Options.UsageException.class)
                .hasMessage("--admin-token-file " + file + " may be read or written by group or others (rw-r--r--);"
                        + " make it the owner's only: chmod 600 " + file)
                .hasMessageNotContaining(STRONG);
    }

    @Test
    void adminTokenFile_weakOrMissingOrNotAFile_isRefused(@TempDir Path dir) throws IOException {
        Path weak = ownerOnly(dir.resolve("weak.token"), "0123456789\n");

        assertThatThrownBy(() -> Options.parse(new String[] {"--admin-token-file", weak.toString()}, Map.of()))
                .hasMessage("--admin-token-file " + weak + ": admin token must be 32 to 256 characters but was 10"
                        + " characters long");
        assertThatThrownBy(() -> Options.parse(new String[] {"--admin-token-file", dir.resolve("none").toString()},
                Map.of()))
                .hasMessage("--admin-token-file " + dir.resolve("none") + " cannot be read (NoSuchFileException)");
        assertThatThrownBy(() -> Options.parse(new String[] {"--admin-token-file", dir.toString()}, Map.of()))
                .hasMessage("--admin-token-file " + dir + " is not a regular file");
    }

    @Test
    void toString_hidesTheAdminToken() {
        Options options = Options.parse(new String[0], Map.of("QUOTA_ADMIN_TOKEN", STRONG));

        assertThat(options.toString()).contains("AdminToken[value=***, source=QUOTA_ADMIN_TOKEN]")
                .doesNotContain(STRONG);
    }

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    private static Path ownerOnly(Path file, String content) throws IOException {
        Files.writeString(file, content);
        if (posix()) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
        return file;
    }
}
