package dev.quota.example.customers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quota.core.Customer;
import dev.quota.core.spi.CustomerDirectory;
import dev.quota.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The JDBC directory against a real database (H2, in memory), alone and behind
 * {@link CustomerDirectory#cached} as quota-cdi uses it. Time passes for real here (the cache
 * runs on the system ticker): the short TTL bounds each wait, which polls, never sleeps.
 */
class JdbcCustomerDirectoryTest {

    static final Duration TTL = Duration.ofMillis(300);
    /** How long past the TTL a change may take to show: a busy 2-core machine. */
    static final Duration WITHIN = TTL.plusSeconds(10);

    JdbcDataSource h2;
    Connection keepAlive;
    CountingDataSource database;

    @BeforeEach
    void createTables() throws SQLException {
        h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        keepAlive = h2.getConnection();
        sql("CREATE TABLE customers (id VARCHAR(128) PRIMARY KEY, plan VARCHAR(63) NOT NULL,"
                + " multiplier DOUBLE NOT NULL)");
        sql("CREATE TABLE api_keys (sha256 CHAR(64) PRIMARY KEY,"
                + " customer_id VARCHAR(128) NOT NULL REFERENCES customers(id))");
        sql("INSERT INTO customers VALUES ('ACME', 'free', 1.0), ('GLOBEX', 'pro', 2.5)");
        sql("INSERT INTO api_keys VALUES ('" + sha256("acme-key") + "', 'ACME')");
        database = new CountingDataSource(h2);
    }

    @AfterEach
    void dropDatabase() throws SQLException {
        sql("SHUTDOWN");
        keepAlive.close();
    }

    @Test
    void lookups_readTheTables() {
        JdbcCustomerDirectory directory = new JdbcCustomerDirectory(database);

        assertThat(directory.byApiKeyHash(sha256("acme-key"))).isEqualTo(Customer.of("ACME", "free", 1.0));
        assertThat(directory.byApiKeyHash(sha256("nobody's key"))).isNull();
        assertThat(directory.byId("GLOBEX")).isEqualTo(Customer.of("GLOBEX", "pro", 2.5));
        assertThat(directory.byId("INITECH")).isNull();
        assertThat(directory.byPrincipal("alice")).isNull();
        assertThat(database.queries).hasValue(4);
    }

    @Test
    void aDatabaseFailure_isThrown_withoutTheKeysHash() {
        database.down = true;

        assertThatThrownBy(() -> new JdbcCustomerDirectory(database).byApiKeyHash(sha256("acme-key")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("customer lookup failed: Connection refused: the database is down");
    }

    @Test
    void unknownKeys_areNotAQueryPerRequest() {
        CustomerDirectory cached = CustomerDirectory.cached(new JdbcCustomerDirectory(database), Duration.ofHours(1),
                1000);

        for (int i = 0; i < 100; i++) {
            assertThat(cached.byApiKeyHash(sha256("guess-" + (i % 3)))).isNull();
            assertThat(cached.byApiKeyHash(sha256("acme-key"))).isNotNull();
        }
        // three unknown keys and one known, one query each
        assertThat(database.queries).hasValue(4);
    }

    @Test
    void aKeyIssuedInTheDatabase_worksWithinTheTtl() throws SQLException {
        CustomerDirectory cached = CustomerDirectory.cached(new JdbcCustomerDirectory(database), TTL, 1000);
        String newKey = sha256("globex-new-key");
        assertThat(cached.byApiKeyHash(newKey)).isNull();

        sql("INSERT INTO api_keys VALUES ('" + newKey + "', 'GLOBEX')");

        Await.until(WITHIN, () -> cached.byApiKeyHash(newKey) != null, () -> "the issued key is still unknown");
        assertThat(cached.byApiKeyHash(newKey)).isEqualTo(Customer.of("GLOBEX", "pro", 2.5));
    }

    @Test
    void aKeyRevokedInTheDatabase_stopsWorkingWithinTheTtl() throws SQLException {
        CustomerDirectory cached = CustomerDirectory.cached(new JdbcCustomerDirectory(database), TTL, 1000);
        assertThat(cached.byApiKeyHash(sha256("acme-key"))).isNotNull();

        sql("DELETE FROM api_keys WHERE customer_id = 'ACME'");

        Await.until(WITHIN, () -> cached.byApiKeyHash(sha256("acme-key")) == null,
                () -> "the revoked key still works");
    }

    @Test
    void aDatabaseOutage_keepsServingTheCachedAnswers() {
        CustomerDirectory cached = CustomerDirectory.cached(new JdbcCustomerDirectory(database), TTL, 1000);
        assertThat(cached.byApiKeyHash(sha256("acme-key"))).isNotNull();
        assertThat(cached.byApiKeyHash(sha256("unknown-key"))).isNull();

        database.down = true;
        // past the TTL every use asks for a refresh; each one fails
        Await.until(WITHIN, () -> {
            cached.byApiKeyHash(sha256("acme-key"));
            return database.refused.get() >= 3;
        }, () -> "no refresh reached the database: " + database.refused);

        assertThat(cached.byApiKeyHash(sha256("acme-key"))).isEqualTo(Customer.of("ACME", "free", 1.0));
        assertThat(cached.byApiKeyHash(sha256("unknown-key"))).isNull();
    }

    private void sql(String statement) throws SQLException {
        try (Statement sql = keepAlive.createStatement()) {
            sql.execute(statement);
        }
    }

    static String sha256(String key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
