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
        boolean blocked = blocked(delayMillis, error);
        ps.setString(5, blocked ? "B" : "P");
        ps.setInt(6, error == null ? 0 : 1);
        int i = 7;
        if (!blocked) {
            ps.setLong(i++, Math.max(0, delayMillis));
        }
        ps.setString(i, error);
    }

    private static boolean blocked(long delayMillis, String error) {
        return error != null && delayMillis < 0;
    }

    private static String insert(RetrySql s, long delayMillis, String error) {
        return blocked(delayMillis, error) ? s.insertBlocked : s.insert;
    }

    static Long insertReturning(Connection c, RetrySql s, NewTask task, long delayMillis, String error)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insert(s, delayMillis, error))) {
            bindInsert(ps, s, task, delayMillis, error);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }

    static Long insertPlain(Connection c, RetrySql s, NewTask task, long delayMillis, String error)
            throws SQLException {
        try (PreparedStatement ps = s.dialect == SqlDialect.H2
                ? c.prepareStatement(insert(s, delayMillis, error), new String[] {"ID"})
                : c.prepareStatement(insert(s, delayMillis, error), Statement.RETURN_GENERATED_KEYS)) {
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
        markRunning(c, s, owner, leaseMillis, locked);
        return locked;
    }

    private static void markRunning(Connection c, RetrySql s, String owner, long leaseMillis, List<ClaimedTask> locked)
            throws SQLException {
        if (!locked.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(s.markRunning(locked.size()))) {
                JdbcText.bind(ps, 1, owner, s.dialect);
                ps.setLong(2, leaseMillis);
                bindIds(ps, 3, locked);
                if (ps.executeUpdate() != locked.size()) {
                    throw new SQLException("claim updated fewer rows than it had locked");
                }
            }
        }
    }

    /**
     * The claim through a sharding proxy ({@link RetrySql#candidates}): the earliest due tasks'
     * ids and keys without a lock, then those of them still due, by id and key, so that each
     * shard locks only rows this claim returns. On PostgreSQL (whose {@code FOR UPDATE SKIP LOCKED}
     * ShardingSphere's parser refuses) that second step is one guarded update; elsewhere a locking
     * read skipping locked rows, then the update, in the caller's transaction. A candidate that
     * another worker took meanwhile is left out; when all were, the claim looks again (twice).
     */
    static List<ClaimedTask> claimCandidates(Connection c, RetrySql s, String owner, int max, long leaseMillis)
            throws SQLException {
        for (int round = 0; ; round++) {
            List<long[]> ids = new ArrayList<>();
            List<String> keys = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(s.candidates())) {
                ps.setInt(1, max);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(new long[] {rs.getLong(1)});
                        keys.add(rs.getString(2));
                    }
                }
            }
            if (ids.isEmpty()) {
                return List.of();
            }
            int n = ids.size();
            List<ClaimedTask> claimed = new ArrayList<>();
            if (s.dialect == SqlDialect.POSTGRESQL) {
                // One update per task: ShardingSphere answers an UPDATE … RETURNING that reached
                // several shards with one shard's rows only, and the others' tasks would stay
                // RUNNING under this owner unseen until their lease ends.
                try (PreparedStatement ps = c.prepareStatement(s.claimCandidates(1))) {
                    for (int k = 0; k < n; k++) {
                        ps.setString(1, owner);
                        ps.setLong(2, leaseMillis);
                        ps.setLong(3, ids.get(k)[0]);
                        ps.setString(4, keys.get(k));
                        claimed.addAll(readClaims(ps, s, owner, 0));
                    }
                }
            } else {
                try (PreparedStatement ps = c.prepareStatement(s.claimCandidates(n))) {
                    for (int k = 0; k < n; k++) {
                        ps.setLong(1 + k, ids.get(k)[0]);
                        ps.setString(1 + n + k, keys.get(k));
                    }
                    claimed.addAll(readClaims(ps, s, owner, 1));
                }
                markRunning(c, s, owner, leaseMillis, claimed);
            }
            if (!claimed.isEmpty() || round == 2) {
                return claimed;
            }
        }
    }

    /** The purge through a sharding proxy: up to {@code limit} purgeable tasks, then a delete of them by key. */
    static int purgeByKey(Connection c, RetrySql s, long olderThanMillis, int limit) throws SQLException {
        List<Long> ids = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(s.purgeable)) {
            ps.setLong(1, -olderThanMillis);
            ps.setInt(2, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                    keys.add(rs.getString(2));
                }
            }
        }
        if (ids.isEmpty()) {
            return 0;
        }
        int n = ids.size();
        try (PreparedStatement ps = c.prepareStatement(s.purgeIds(n))) {
            for (int i = 0; i < n; i++) {
                ps.setLong(1 + i, ids.get(i));
                ps.setString(1 + n + i, keys.get(i));
            }
            return ps.executeUpdate();
        }
    }

    /** Binds {@link RetrySql#ids}: the tasks' ids from {@code from}, then their keys. */
    static void bindIds(PreparedStatement ps, int from, List<ClaimedTask> tasks) throws SQLException {
        int n = tasks.size();
        for (int i = 0; i < n; i++) {
            ps.setLong(from + i, tasks.get(i).id());
            ps.setString(from + n + i, tasks.get(i).taskKey());
        }
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
        Set<String> changed = new HashSet<>();
        int n = tasks.size();
        int rows;
        try (PreparedStatement ps = c.prepareStatement(s.succeedAll(n))) {
            JdbcText.bind(ps, 1, owner, s.dialect);
            bindIds(ps, 2, tasks);
            for (int i = 0; i < n; i++) {
                ClaimedTask t = tasks.get(i);
                ps.setLong(2 + 2 * n + 2 * i, t.id());
                ps.setInt(3 + 2 * n + 2 * i, t.runs());
            }
            if (s.dialect == SqlDialect.POSTGRESQL) {
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        changed.add(rs.getString(1));
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
                bindIds(ps, 1, tasks);
                Map<String, ClaimedTask> byKey = new HashMap<>();
                tasks.forEach(t -> byKey.put(t.taskKey(), t));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ClaimedTask t = byKey.get(rs.getString(1));
                        if (t != null
                                && "S".equals(rs.getString(2))
                                && owner.equals(JdbcText.read(rs, 3, s.dialect))
                                && rs.getInt(4) == t.runs()) {
                            changed.add(t.taskKey());
                        }
                    }
                }
            }
        }
        List<ClaimedTask> refused = new ArrayList<>();
        for (ClaimedTask t : tasks) {
            if (!changed.contains(t.taskKey())) {
                refused.add(t);
            }
        }
        return refused;
    }
}
