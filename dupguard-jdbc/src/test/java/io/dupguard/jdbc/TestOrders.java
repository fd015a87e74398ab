package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** The business table of the transactional tests: an order row written inside the work. */
final class TestOrders {
    private TestOrders() {}

    static final String CREATE_TABLE = "CREATE TABLE IF NOT EXISTS dupguard_test_orders (order_no VARCHAR(100)"
            + " NOT NULL, scope VARCHAR(64) NOT NULL)";

    static void createTable(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(CREATE_TABLE);
        }
    }

    /** Inserts order {@code orderNo} of {@code scope} through {@code c}; returns the rows inserted (1). */
    static int insert(Connection c, String scope, String orderNo) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO dupguard_test_orders (order_no, scope) VALUES (?, ?)")) {
            ps.setString(1, orderNo);
            ps.setString(2, scope);
            return ps.executeUpdate();
        }
    }

    /** The committed orders {@code orderNo} of {@code scope}. */
    static int count(DataSource ds, String scope, String orderNo) throws SQLException {
        return TestDatabases.count(
                ds, "SELECT COUNT(*) FROM dupguard_test_orders WHERE order_no = ? AND scope = ?", orderNo, scope);
    }
}
