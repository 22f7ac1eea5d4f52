package dev.quota.jaxrs.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.jaxrs.Fixture;
import dev.quota.jaxrs.TestConfig;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Registering the admin API as its javadoc says ({@code resourceConfig.register(QuotaAdminResource...build())})
 * on Jersey: Jersey logs one WARNING at start-up, "A provider dev.quota.jaxrs.admin.QuotaAdminResource
 * registered in SERVER runtime does not implement any provider interfaces applicable in the SERVER
 * runtime ... will be ignored", which is about the instance as a provider only: the same instance is
 * served as the resource at {@code /admin}. The test pins that this is the only warning and that the
 * admin API answers (docs/operations.md, "The admin API's start-up warning on Jersey").
 */
class AdminRegistrationWarningTest {

    private static final String TOKEN = "admin-token-0123456789abcdef-GHIJKL";

    @Test
    void registeringTheAdminApiOnJersey_logsOnlyTheProviderWarning_andTheAdminApiIsServed() {
        Logger jersey = Logger.getLogger("org.glassfish.jersey");
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jersey.addHandler(handler);
        try (Fixture fixture = Fixture.with(TestConfig.standard()).admin(TOKEN).start()) {
            assertThat(fixture.server.get("/admin/config", "Authorization", "Bearer " + TOKEN).statusCode())
                    .isEqualTo(200);
        } finally {
            jersey.removeHandler(handler);
        }

        assertThat(warnings).extracting(record -> record.getLoggerName() + ": " + record.getMessage())
                .singleElement().asString()
                .startsWith("org.glassfish.jersey.internal.inject.Providers: A provider"
                        + " dev.quota.jaxrs.admin.QuotaAdminResource registered in SERVER runtime does not implement any"
                        + " provider interfaces applicable in the SERVER runtime.");
    }
}
