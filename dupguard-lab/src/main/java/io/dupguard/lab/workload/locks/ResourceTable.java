package io.dupguard.lab.workload.locks;

import io.dupguard.jdbc.Fence;
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
 * The protected resource: rows written only under their lock, with a {@code fence} column for
 * {@link Fence}, and a log of every write attempt — the token it carried and whether the row took
 * it — committed with the write, so the log's order is the order the writes reached the row.
 */
final class ResourceTable {
    /** One logged write attempt. */
    record Logged(long seq, String resource, long token, String writer, boolean accepted) {}

    final String name;
    final String log;
    private final DataSource dataSource;
    private final LabSql sql;
    private final Fence fence;

    ResourceTable(LabEnvironment env, String name) {
        this.name = name;
        this.log = name + "_log";
        this.dataSource = env.dataSource();
        this.sql = env.sql();
        this.fence = Fence.on(name, "id", "fence");
    }

    void recreate(int resources) throws SQLException {
        LabSql.recreate(
                dataSource,
                new String[] {name, log},
                "CREATE TABLE " + name + " (id " + sql.key(64) + " PRIMARY KEY, fence BIGINT DEFAULT 0,"
                        + " writes BIGINT DEFAULT 0 NOT NULL, last_writer VARCHAR(64))",
                "CREATE TABLE " + log + " (seq " + sql.identity() + ", resource_id " + sql.key(64) + ", token BIGINT"
                        + " NOT NULL, writer " + sql.key(64) + ", accepted SMALLINT NOT NULL, written_at "
                        + sql.createdAt() + ")");
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + name + " (id) VALUES (?)")) {
            for (int i = 0; i < resources; i++) {
                ps.setString(1, LockBackendsWorkload.resource(i));
                ps.executeUpdate();
            }
        }
    }

    /**
     * Writes {@code resource} as {@code writer}, fenced or not, and logs the attempt, in one
     * transaction.
     *
     * @return whether the row took the write (unfenced: always)
     */
    boolean write(String resource, long token, String writer, boolean fenced) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                boolean accepted = fenced
                        ? fence.update(c, resource, token, "writes = writes + 1, last_writer = ?", writer)
                        : plainWrite(c, resource, token, writer);
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO " + log + " (resource_id, token, writer, accepted) VALUES (?, ?, ?, ?)")) {
                    ps.setString(1, resource);
                    ps.setLong(2, token);
                    ps.setString(3, writer);
                    ps.setInt(4, accepted ? 1 : 0);
                    ps.executeUpdate();
                }
                c.commit();
                return accepted;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    /** The write as code without fencing does it: the lock is assumed to be enough. */
    private boolean plainWrite(Connection c, String resource, long token, String writer) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "UPDATE " + name + " SET writes = writes + 1, last_writer = ?, fence = ? WHERE id = ?")) {
            ps.setString(1, writer);
            ps.setLong(2, token);
            ps.setString(3, resource);
            return ps.executeUpdate() == 1;
        }
    }

    /** Every logged attempt, in commit order. */
    List<Logged> log() throws SQLException {
        List<Logged> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT seq, resource_id, token, writer, accepted FROM " + log + " ORDER BY seq");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Logged(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getInt(5) == 1));
            }
        }
        return out;
    }
}
