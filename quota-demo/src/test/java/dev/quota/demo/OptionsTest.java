package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OptionsTest {

    @Test
    void parse_noArguments_givesTheDefaults() {
        Options options = Options.parse(new String[0], Map.of());

        assertThat(options).isEqualTo(new Options("127.0.0.1", 8080, null, null, 1, 1000, null, false));
    }

    @Test
    void parse_everyOption_inBothForms() {
        Options options = Options.parse(new String[] {"--port=9000", "--config", "my.yaml", "--redis=redis://h:1",
            "--instances", "3", "--host", "0.0.0.0", "--redis-timeout", "250"}, Map.of());

        assertThat(options).isEqualTo(new Options("0.0.0.0", 9000, Path.of("my.yaml"), "redis://h:1", 3, 250, null, false));
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
    void adminToken_fromOptionOrEnvironment_optionWins() {
        Map<String, String> env = Map.of("QUOTA_ADMIN_TOKEN", "env-token-0123456789");

        assertThat(Options.parse(new String[0], Map.of()).adminToken()).isNull();
        assertThat(Options.parse(new String[0], env).adminToken()).isEqualTo("env-token-0123456789");
        assertThat(Options.parse(new String[] {"--admin-token", "opt-token-0123456789"}, env).adminToken())
                .isEqualTo("opt-token-0123456789");
    }

    @Test
    void adminToken_tooShort_isAUsageErrorThatDoesNotEchoIt() {
        assertThatThrownBy(() -> Options.parse(new String[] {"--admin-token=short-secret"}, Map.of()))
                .isInstanceOf(Options.UsageException.class)
                .hasMessage("--admin-token must be 16 to 256 visible ASCII characters but was 12 characters long");
        assertThatThrownBy(() -> Options.parse(new String[0], Map.of("QUOTA_ADMIN_TOKEN", "has a space in it!")))
                .hasMessageStartingWith("QUOTA_ADMIN_TOKEN must be 16 to 256");
    }

    @Test
    void toString_hidesTheAdminToken() {
        Options options = Options.parse(new String[] {"--admin-token", "opt-token-0123456789"}, Map.of());

        assertThat(options.toString()).contains("adminToken=***").doesNotContain("opt-token");
    }
}
