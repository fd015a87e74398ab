package io.dupguard.lab.workload.payment;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.LabSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The ledger: one row per charge, with a plain (non-unique) index on {@code request_id} — the
 * strategies must keep it single themselves. Statements run in autocommit on pooled connections,
 * except {@link #insert(Connection, Payment)}, which joins the caller's transaction.
 */
final class ChargeTable {
    /** One charge, as the checker reads it. */
    record Row(long id, String requestId, long amountCents, long createdAtMillis) {}

    final String name;
    private final DataSource dataSource;
    private final LabSql sql;
    private final String insert;

    ChargeTable(LabEnvironment env, String name) {
        this.name = name;
        this.dataSource = env.dataSource();
        this.sql = env.sql();
        this.insert = "INSERT INTO " + name + " (request_id, account, amount_cents) VALUES (?, ?, ?)";
    }

    void recreate() throws SQLException {
        LabSql.recreate(
                dataSource,
                new String[] {name},
                "CREATE TABLE " + name + " (id " + sql.identity() + ", request_id " + sql.key(64) + ", account "
                        + sql.key(64) + ", amount_cents BIGINT NOT NULL, created_at " + sql.createdAt() + ")",
                "CREATE INDEX " + name + "_request_id ON " + name + " (request_id)");
    }

    /** The first charge for {@code requestId}, or null. */
    Long findId(String requestId) throws SQLException {
        return findId(dataSource, requestId);
    }

    /** The first charge for {@code requestId} as the database at {@code where} (a standby) sees it, or null. */
    Long findId(DataSource where, String requestId) throws SQLException {
        try (Connection c = where.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT id FROM " + name + " WHERE request_id = ? ORDER BY id LIMIT 1")) {
            ps.setString(1, requestId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }

    /** Charges in autocommit and returns the charge id. */
    long insert(Payment p) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return insert(c, p);
        }
    }

    /** Charges on {@code c}, inside whatever transaction it has, and returns the charge id. */
    long insert(Connection c, Payment p) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insert, Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, p.requestId());
            ps.setString(2, p.account());
            ps.setLong(3, p.amountCents());
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                if (!keys.next()) {
                    throw new SQLException("no generated id for " + p.requestId());
                }
                return keys.getLong(1);
            }
        }
    }

    /** Every charge, by id. */
    List<Row> rows() throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT id, request_id, amount_cents, created_at FROM " + name + " ORDER BY id");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(new Row(
                        rs.getLong(1),
                        rs.getString(2),
                        rs.getLong(3),
                        rs.getTimestamp(4).getTime()));
            }
        }
        return rows;
    }
}
