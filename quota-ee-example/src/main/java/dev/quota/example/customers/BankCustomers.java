package dev.quota.example.customers;

import dev.quota.core.spi.CustomerDirectory;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The bank's customers from its database instead of the plans file, when the system property
 * {@code bank.customers} is {@code database} (default {@code plans}): quota-cdi uses the
 * directory produced here, behind its cache. The server's default data source holds the tables;
 * the example creates them and its two customers if they are missing.
 */
@ApplicationScoped
public class BankCustomers {

    @Resource(lookup = "java:comp/DefaultDataSource")
    DataSource dataSource;

    /** The database's customers, or null: the plans file's. */
    @Produces
    @Dependent
    public @Nullable CustomerDirectory customers() {
        if (!"database".equals(System.getProperty("bank.customers", "plans"))) {
            return null;
        }
        try (Connection connection = dataSource.getConnection(); Statement sql = connection.createStatement()) {
            sql.execute("CREATE TABLE IF NOT EXISTS customers (id VARCHAR(128) PRIMARY KEY,"
                    + " plan VARCHAR(63) NOT NULL, multiplier DOUBLE NOT NULL)");
            sql.execute("CREATE TABLE IF NOT EXISTS api_keys (sha256 CHAR(64) PRIMARY KEY,"
                    + " customer_id VARCHAR(128) NOT NULL REFERENCES customers(id))");
            // the keys of plans.yaml: example-free-key, example-pro-key
            sql.execute("MERGE INTO customers KEY (id) VALUES ('ACME', 'free', 1.0), ('GLOBEX', 'pro', 1.0)");
            sql.execute("MERGE INTO api_keys KEY (sha256) VALUES"
                    + " ('1a978782b7860779b7f2f4d4351a4989283633cf9d0a740ee193980a5685f898', 'ACME'),"
                    + " ('15eab27cd9ee13e26ae914437c5d557aa6b0f1fb75600db45f39f95e88145a68', 'GLOBEX')");
        } catch (SQLException e) {
            throw new IllegalStateException("bank.customers=database: cannot prepare the customer tables: "
                    + e.getMessage(), e);
        }
        return new JdbcCustomerDirectory(dataSource);
    }
}
