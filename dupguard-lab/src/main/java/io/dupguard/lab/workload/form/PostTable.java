package io.dupguard.lab.workload.form;

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
 * The business rows a submit creates (blog posts). {@code submit_id} is there for the
 * checker; no strategy deduplicates on it.
 */
final class PostTable {
    /** One post, as the checker reads it. */
    record Row(long id, String submitId, String content, long createdAtMillis) {}

    final String name;
    final DataSource dataSource;
    private final LabSql sql;

    PostTable(LabEnvironment env, String name) {
        this.name = name;
        this.dataSource = env.dataSource();
        this.sql = env.sql();
    }

    void recreate() throws SQLException {
        LabSql.recreate(
                dataSource,
                new String[] {name},
                "CREATE TABLE " + name + " (id " + sql.identity() + ", submit_id " + sql.key(64) + ", user_id "
                        + sql.key(64) + ", content VARCHAR(200) NOT NULL, created_at " + sql.createdAt() + ")");
    }

    /** Inserts in autocommit and returns the post id. */
    String insert(FormSubmit s) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return insert(c, s);
        }
    }

    /** Inserts on {@code c}, inside whatever transaction it has, and returns the post id. */
    String insert(Connection c, FormSubmit s) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO " + name + " (submit_id, user_id, content) VALUES (?, ?, ?)",
                Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, s.submitId());
            ps.setString(2, s.user());
            ps.setString(3, s.content());
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                if (!keys.next()) {
                    throw new SQLException("no generated id for " + s.submitId());
                }
                return Long.toString(keys.getLong(1));
            }
        }
    }

    /** Every post, by id. */
    List<Row> rows() throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT id, submit_id, content, created_at FROM " + name + " ORDER BY id");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(new Row(
                        rs.getLong(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getTimestamp(4).getTime()));
            }
        }
        return rows;
    }
}
