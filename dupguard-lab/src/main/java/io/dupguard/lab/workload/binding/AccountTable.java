package io.dupguard.lab.workload.binding;

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
 * A typical {@code t_account}: an auto-increment id, the OpenID, the local identifier and the
 * creation time, with an index on {@code open_id} that is unique only for the strategies that rely
 * on it. Every statement runs in autocommit on its own pooled connection, as a plain DAO would.
 */
final class AccountTable {
    /** One row, as the checker reads it. */
    record Row(long id, String openId, long createdAtMillis) {}

    final String name;
    private final DataSource dataSource;
    private final LabSql sql;
    private final String select;
    private final String insert;
    private final String insertIgnore;

    AccountTable(LabEnvironment env, String name) {
        this.name = name;
        this.dataSource = env.dataSource();
        this.sql = env.sql();
        // LIMIT 1 as in the seed: with duplicates present, everything reads the smallest id.
        this.select = "SELECT id FROM " + name + " WHERE open_id = ? ORDER BY id LIMIT 1";
        this.insert = "INSERT INTO " + name + " (open_id, local_id) VALUES (?, ?)";
        this.insertIgnore = sql.insertIgnore(name, "open_id, local_id", "?, ?");
    }

    void recreate(boolean uniqueOpenId) throws SQLException {
        LabSql.recreate(
                dataSource,
                new String[] {name},
                "CREATE TABLE " + name + " (id " + sql.identity() + ", open_id " + sql.key(64) + ", local_id "
                        + sql.key(64) + ", created_at " + sql.createdAt() + ")",
                "CREATE " + (uniqueOpenId ? "UNIQUE " : "") + "INDEX " + name + "_open_id ON " + name + " (open_id)");
    }

    /** The smallest id bound to {@code openId}, or null. */
    Long findId(String openId) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(select)) {
            ps.setString(1, openId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }

    /** Inserts a row and returns its id; throws on a unique violation where the index is unique. */
    long insert(Binding b) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(insert, Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, b.openId());
            ps.setString(2, b.localId());
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                if (!keys.next()) {
                    throw new SQLException("no generated id for " + b.openId());
                }
                return keys.getLong(1);
            }
        }
    }

    /** Inserts a row unless the OpenID is already bound; never fails for that reason. */
    void insertIgnore(Binding b) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(insertIgnore)) {
            ps.setString(1, b.openId());
            ps.setString(2, b.localId());
            ps.executeUpdate();
        }
    }

    /**
     * Rows beyond the first per OpenID, the way a DBA would look for them: {@code GROUP BY open_id
     * HAVING COUNT(*) > 1}.
     */
    long duplicateRows() throws SQLException {
        String query = "SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT open_id, COUNT(*) AS n FROM " + name
                + " GROUP BY open_id HAVING COUNT(*) > 1) d";
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(query);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Every row, by id. */
    List<Row> rows() throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT id, open_id, created_at FROM " + name + " ORDER BY id");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(new Row(
                        rs.getLong(1), rs.getString(2), rs.getTimestamp(3).getTime()));
            }
        }
        return rows;
    }
}
