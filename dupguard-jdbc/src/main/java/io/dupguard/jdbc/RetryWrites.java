package io.dupguard.jdbc;

import io.dupguard.retry.ClaimedTask;
import io.dupguard.retry.Enqueued;
import io.dupguard.retry.NewTask;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The multi-statement writes of {@link JdbcRetryStore}, each on a connection it is given: the
 * insert with its dedup re-read, the two-step claim of MySQL/MariaDB and H2, and the batch
 * completion with its check of which claims were refused.
 */
final class RetryWrites {
    private RetryWrites() {}

    /** Inserts a task; {@code delayMillis} &lt; 0 with an error records it BLOCKED. */
    static Enqueued insert(Connection c, RetrySql s, NewTask task, long delayMillis, String error) throws SQLException {
        for (int attempt = 0; ; attempt++) {
            Long id = s.dialect == SqlDialect.POSTGRESQL
                    ? insertReturning(c, s, task, delayMillis, error)
                    : insertPlain(c, s, task, delayMillis, error);
            if (id != null) {
                return new Enqueued(id, true);
            }
            try (PreparedStatement ps = c.prepareStatement(s.findDedup)) {
                JdbcText.bind(ps, 1, task.type(), s.dialect);
                JdbcText.bind(ps, 2, task.dedupKey(), s.dialect);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return new Enqueued(rs.getLong(1), false);
                    }
                }
            }
            if (attempt == 2) { // purged between the insert and the read, three times over
                throw new SQLException("dedup key of " + task + " conflicts but its task cannot be read");
            }
        }
    }

    static void bindInsert(PreparedStatement ps, RetrySql s, NewTask task, long delayMillis, String error)
            throws SQLException {
        JdbcText.bind(ps, 1, task.type(), s.dialect);
        ps.setString(2, task.taskKey());
        if (task.dedupKey() == null) {
            ps.setNull(3, s.dialect == SqlDialect.MYSQL ? Types.VARBINARY : Types.VARCHAR);
        } else {
            JdbcText.bind(ps, 3, task.dedupKey(), s.dialect);
        }
        ps.setBytes(4, task.payload());
        boolean blocked = error != null && delayMillis < 0;
        ps.setString(5, blocked ? "B" : "P");
        ps.setInt(6, error == null ? 0 : 1);
        ps.setLong(7, blocked ? -1 : Math.max(0, delayMillis));
        ps.setLong(8, Math.max(0, delayMillis));
        ps.setString(9, error);
    }

    static Long insertReturning(Connection c, RetrySql s, NewTask task, long delayMillis, String error)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(s.insert)) {
            bindInsert(ps, s, task, delayMillis, error);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }

    static Long insertPlain(Connection c, RetrySql s, NewTask task, long delayMillis, String error)
            throws SQLException {
        try (PreparedStatement ps = s.dialect == SqlDialect.H2
                ? c.prepareStatement(s.insert, new String[] {"ID"})
                : c.prepareStatement(s.insert, Statement.RETURN_GENERATED_KEYS)) {
            bindInsert(ps, s, task, delayMillis, error);
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                if (!keys.next()) {
                    throw new SQLException("the database reported no id for the new retry task");
                }
                return keys.getLong(1);
            }
        } catch (SQLException e) {
            if (task.dedupKey() != null && UniqueViolation.test(e)) {
                return null;
            }
            throw e;
        }
    }

    static List<ClaimedTask> lockAndMark(Connection c, RetrySql s, String owner, int max, long leaseMillis)
            throws SQLException {
        List<ClaimedTask> locked;
        try (PreparedStatement ps = c.prepareStatement(s.claim)) {
            ps.setInt(1, max);
            locked = readClaims(ps, s, owner, 1);
        }
        if (!locked.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(s.markRunning(locked.size()))) {
                JdbcText.bind(ps, 1, owner, s.dialect);
                ps.setLong(2, leaseMillis);
                for (int i = 0; i < locked.size(); i++) {
                    ps.setLong(3 + i, locked.get(i).id());
                }
                if (ps.executeUpdate() != locked.size()) {
                    throw new SQLException("claim updated fewer rows than it had locked");
                }
            }
        }
        return locked;
    }

    /** Reads (id, type, key, payload, runs, run_base); {@code runsAdded} is what the claim will add. */
    static List<ClaimedTask> readClaims(PreparedStatement ps, RetrySql s, String owner, int runsAdded)
            throws SQLException {
        List<ClaimedTask> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                int runs = rs.getInt(5) + runsAdded;
                out.add(new ClaimedTask(
                        rs.getLong(1),
                        JdbcText.read(rs, 2, s.dialect),
                        rs.getString(3),
                        rs.getBytes(4),
                        runs,
                        runs - rs.getInt(6),
                        owner));
            }
        }
        return out;
    }

    static List<ClaimedTask> succeedAll(Connection c, RetrySql s, String owner, List<ClaimedTask> tasks)
            throws SQLException {
        Set<Long> changed = new HashSet<>();
        int n = tasks.size();
        int rows;
        try (PreparedStatement ps = c.prepareStatement(s.succeedAll(n))) {
            JdbcText.bind(ps, 1, owner, s.dialect);
            for (int i = 0; i < n; i++) {
                ClaimedTask t = tasks.get(i);
                ps.setLong(2 + i, t.id());
                ps.setLong(2 + n + 2 * i, t.id());
                ps.setInt(3 + n + 2 * i, t.runs());
            }
            if (s.dialect == SqlDialect.POSTGRESQL) {
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        changed.add(rs.getLong(1));
                    }
                }
                rows = changed.size();
            } else {
                rows = ps.executeUpdate();
            }
        }
        if (rows == n) {
            return List.of();
        }
        if (s.dialect != SqlDialect.POSTGRESQL) {
            // A row this batch completed is SUCCEEDED with our owner and run count; nothing else is.
            try (PreparedStatement ps = c.prepareStatement(s.states(n))) {
                for (int i = 0; i < n; i++) {
                    ps.setLong(1 + i, tasks.get(i).id());
                }
                Map<Long, ClaimedTask> byId = new HashMap<>();
                tasks.forEach(t -> byId.put(t.id(), t));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ClaimedTask t = byId.get(rs.getLong(1));
                        if ("S".equals(rs.getString(2))
                                && owner.equals(JdbcText.read(rs, 3, s.dialect))
                                && rs.getInt(4) == t.runs()) {
                            changed.add(t.id());
                        }
                    }
                }
            }
        }
        List<ClaimedTask> refused = new ArrayList<>();
        for (ClaimedTask t : tasks) {
            if (!changed.contains(t.id())) {
                refused.add(t);
            }
        }
        return refused;
    }
}
