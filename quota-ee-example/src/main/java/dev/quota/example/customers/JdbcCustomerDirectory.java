package dev.quota.example.customers;

import dev.quota.core.Customer;
import dev.quota.core.spi.CustomerDirectory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Customers from the application's own tables, in plain JDBC:
 *
 * <pre>
 * customers(id VARCHAR(128) PRIMARY KEY, plan VARCHAR(63) NOT NULL, multiplier DOUBLE NOT NULL)
 * api_keys(sha256 CHAR(64) PRIMARY KEY, customer_id VARCHAR(128) NOT NULL REFERENCES customers(id))
 * </pre>
 *
 * One query per lookup; meant to sit behind {@link CustomerDirectory#cached} (quota-cdi wraps the
 * directory an application produces), so a request costs no query while its answer is cached, an
 * unknown key included, and a database outage keeps the cached answers. A key issued or revoked
 * in the tables takes effect within the cache's time to live.
 */
public final class JdbcCustomerDirectory implements CustomerDirectory {

    static final String BY_KEY = "SELECT c.id, c.plan, c.multiplier FROM api_keys k"
            + " JOIN customers c ON c.id = k.customer_id WHERE k.sha256 = ?";
    static final String BY_ID = "SELECT id, plan, multiplier FROM customers WHERE id = ?";

    private final DataSource dataSource;

    /** A directory over the tables {@code customers} and {@code api_keys} of {@code dataSource}. */
    public JdbcCustomerDirectory(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * @throws IllegalStateException if the database cannot answer (the cache keeps its answer; an
     *                               uncached lookup is answered 503)
     */
    @Override
    public @Nullable Customer byApiKeyHash(String sha256Hex) {
        return query(BY_KEY, sha256Hex);
    }

    /**
     * @throws IllegalStateException if the database cannot answer
     */
    @Override
    public @Nullable Customer byId(String id) {
        return query(BY_ID, id);
    }

    private @Nullable Customer query(String sql, String value) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, value);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? Customer.of(row.getString(1), row.getString(2), row.getDouble(3)) : null;
            }
        } catch (SQLException e) {
            // the key's hash stays out of the message: it identifies a customer's credential
            throw new IllegalStateException("customer lookup failed: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "JDBC customers (tables customers, api_keys)";
    }
}
