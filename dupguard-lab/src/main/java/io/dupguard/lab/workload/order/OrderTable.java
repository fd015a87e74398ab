package io.dupguard.lab.workload.order;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.LabSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The service's orders ({@code id}, {@code status}, the platform's {@code charge_id} once paid)
 * and its retry log (guarantee R1: one row per order whose payment failed retryably). Autocommit, one
 * pooled connection per statement.
 */
final class OrderTable {
    /** One order, as the checker and the naive strategy read it. */
    record Order(String id, long amountCents, OrderStatus status, Long chargeId) {}

    final String name;
    final String retryLog;
    final DataSource dataSource;
    private final String create;
    private final String logRetry;

    OrderTable(LabEnvironment env, String name) {
        this.name = name;
        this.retryLog = name + "_retry";
        this.dataSource = env.dataSource();
        this.create = env.sql().insertIgnore(name, "id, amount_cents, status", "?, ?, ?");
        this.logRetry = env.sql().insertIgnore(retryLog, "order_id, reason", "?, ?");
    }

    void recreate(LabSql sql) throws SQLException {
        LabSql.recreate(
                dataSource,
                new String[] {name, retryLog},
                "CREATE TABLE " + name + " (id " + sql.key(64) + " PRIMARY KEY, amount_cents BIGINT NOT NULL, status"
                        + " VARCHAR(16) NOT NULL, charge_id BIGINT, created_at " + sql.createdAt() + ")",
                "CREATE TABLE " + retryLog + " (order_id " + sql.key(64) + " PRIMARY KEY, reason VARCHAR(64) NOT NULL,"
                        + " created_at " + sql.createdAt() + ")");
    }

    /**
     * The order the user is about to pay, READY. Insert-if-absent: a create whose connection was
     * killed after the commit is asked again, and finds its order there.
     */
    void create(Pay p) throws SQLException {
        update(create, p.orderId(), p.amountCents(), OrderStatus.READY.name());
    }

    Order find(String id) throws SQLException {
        List<Order> found = select("WHERE id = ?", id);
        return found.isEmpty() ? null : found.get(0);
    }

    /** Every order. */
    List<Order> orders() throws SQLException {
        return select("ORDER BY id");
    }

    /** Sets the status with no guard at all: what the naive strategy does. */
    void setStatus(String id, OrderStatus status, Long chargeId) throws SQLException {
        update(
                "UPDATE " + name + " SET status = ?, charge_id = COALESCE(?, charge_id) WHERE id = ?",
                status.name(),
                chargeId,
                id);
    }

    void logRetry(String id, String reason) throws SQLException {
        update(logRetry, id, reason);
    }

    /** Orders in the retry log, oldest first. */
    List<String> retries() throws SQLException {
        List<String> ids = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT order_id FROM " + retryLog + " ORDER BY created_at, order_id");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        return ids;
    }

    void retried(String id) throws SQLException {
        update("DELETE FROM " + retryLog + " WHERE order_id = ?", id);
    }

    private List<Order> select(String rest, Object... params) throws SQLException {
        List<Order> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT id, amount_cents, status, charge_id FROM " + name + " " + rest)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long charge = rs.getLong(4);
                    out.add(new Order(
                            rs.getString(1),
                            rs.getLong(2),
                            OrderStatus.MACHINE.parse(rs.getString(3)),
                            rs.wasNull() ? null : charge));
                }
            }
        }
        return out;
    }

    private void update(String sql, Object... params) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                if (params[i] == null) {
                    ps.setNull(i + 1, Types.BIGINT); // the only nullable parameter: charge_id
                } else {
                    ps.setObject(i + 1, params[i]);
                }
            }
            ps.executeUpdate();
        }
    }
}
