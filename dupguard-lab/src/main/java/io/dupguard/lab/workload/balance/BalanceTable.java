package io.dupguard.lab.workload.balance;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.LabSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Seed 000's {@code user_balance}: one row per account, with the balance id the service generated
 * for it (before inserting, guarantee K8), the currency and the amount. The index on {@code account} is
 * unique only for the strategies that rely on it. Reached through {@link SlowInserts}, in
 * autocommit, one pooled connection per statement.
 */
final class BalanceTable {
    /** One row, as the checker reads it. */
    record Row(long id, String balanceId, String account, String currency, long createdAtMillis) {}

    final String name;
    final DataSource dataSource;
    private final LabSql sql;

    BalanceTable(LabEnvironment env, String name) {
        this.name = name;
        this.dataSource = SlowInserts.wrap(env.dataSource());
        this.sql = env.sql();
    }

    void recreate(boolean uniqueAccount) throws SQLException {
        LabSql.recreate(
                dataSource,
                new String[] {name},
                "CREATE TABLE " + name + " (id " + sql.identity() + ", balance_id " + sql.key(64) + ", account "
                        + sql.key(64) + ", currency " + sql.key(3) + ", amount_cents BIGINT DEFAULT 0 NOT NULL,"
                        + " created_at " + sql.createdAt() + ")",
                "CREATE " + (uniqueAccount ? "UNIQUE " : "") + "INDEX " + name + "_account ON " + name + " (account)");
    }

    /** The first row of {@code account}, or null. */
    Row find(String account) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(select("WHERE account = ? ORDER BY id LIMIT 1"))) {
            ps.setString(1, account);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? row(rs) : null;
            }
        }
    }

    /** Inserts a row; throws on a unique violation where the index is unique. */
    void insert(BalanceInit b, String balanceId) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO " + name + " (balance_id, account, currency) VALUES (?, ?, ?)")) {
            ps.setString(1, balanceId);
            ps.setString(2, b.account());
            ps.setString(3, b.currency());
            ps.executeUpdate();
        }
    }

    /** Every row, by id. */
    List<Row> rows() throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(select("ORDER BY id"));
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(row(rs));
            }
        }
        return rows;
    }

    private String select(String rest) {
        return "SELECT id, balance_id, account, currency, created_at FROM " + name + " " + rest;
    }

    private static Row row(ResultSet rs) throws SQLException {
        return new Row(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getTimestamp(5).getTime());
    }
}
