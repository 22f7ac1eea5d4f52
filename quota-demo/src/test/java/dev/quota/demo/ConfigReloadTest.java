package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.core.QuotaService;
import dev.quota.core.config.QuotaConfigLoader;
import dev.quota.testkit.Await;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A {@code --config} file is watched: an edit changes the limits of the running demo. */
class ConfigReloadTest {

    private static final String FREE_BURST = "      - name: burst\n        capacity: 20\n";

    @Test
    void editedConfigFile_changesALimitWithin2SecondsWithoutRestart(@TempDir Path dir) throws IOException {
        String bundled = bundledText();
        assertThat(bundled).contains(FREE_BURST);
        Path file = dir.resolve("plans.yaml");
        Files.writeString(file, bundled);
        try (RunningDemo demo = RunningDemo.start(QuotaConfigLoader.load(file), file, null, Duration.ofSeconds(5))) {
            assertThat(Http.header(Http.get(demo.api.resolve("accounts/ACC-1001"), "X-API-Key", "demo-free-key"),
                    "RateLimit-Policy")).contains("\"free-burst\";q=20;");

            Files.writeString(file, bundled.replace(FREE_BURST, "      - name: burst\n        capacity: 40\n"));

            QuotaService service = demo.app.services().get(0);
            Await.until(Duration.ofSeconds(2), () -> freeBurst(service) == 40, () -> "the edit to be applied");
            assertThat(freeBurst(service)).as("free burst capacity 2 s after the edit").isEqualTo(40);
            assertThat(Http.header(Http.get(demo.api.resolve("accounts/ACC-1001"), "X-API-Key", "demo-free-key"),
                    "RateLimit-Policy")).contains("\"free-burst\";q=40;");
        }
    }

    private static long freeBurst(QuotaService service) {
        return service.config().plan("free").orElseThrow().limits().get(0).capacity();
    }

    private static String bundledText() throws IOException {
        try (InputStream in = ConfigReloadTest.class.getClassLoader().getResourceAsStream("plans.yaml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
