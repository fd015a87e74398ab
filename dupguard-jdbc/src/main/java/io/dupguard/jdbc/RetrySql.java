package io.dupguard.jdbc;

import io.dupguard.retry.RetryTask;
import io.dupguard.retry.TaskState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** The statements of {@link JdbcRetryStore} for one dialect and table, and how rows are read. */
final class RetrySql {
    static final String COLUMNS =
            "id, task_type, task_key, dedup_key, state, runs, run_base, due_at, last_error, created_at, updated_at, payload";

    final SqlDialect dialect;
    final String table;
    final String insert;
    final String findDedup;
    final String find;
    /** PostgreSQL: the whole claim. Others: the locking read of the claim's first step. */
    final String claim;

    final String extend;
    final String succeed;
    final String retryLater;
    final String block;
    final String unblock;
    final String unblockAll;
    /** {@link #unblockAll} for every type: a null type. */
    final String unblockEvery;

    final String cancel;
    final String exists;
    final String stats;
    final String purge;

    RetrySql(SqlDialect dialect, String table) {
        this.dialect = dialect;
        this.table = table;
        // A task recorded BLOCKED gets no due time: the delay is bound twice, negative for "none".
        String now = dialect.now();
        String nowPlus = dialect.nowPlusMillisParam();
        String insertCols = "INSERT INTO " + table
                + " (task_type, task_key, dedup_key, payload, state, runs, run_base, due_at, last_error,"
                + " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, CASE WHEN CAST(? AS "
                + (dialect == SqlDialect.MYSQL ? "SIGNED" : "BIGINT") + ") >= 0 THEN "
                + nowPlus
                + " END, ?, " + now + ", " + now + ")";
        // On PostgreSQL an existing dedup key must not abort the caller's transaction, and the insert
        // notifies sleeping workers (delivered at commit, and only if the row was inserted).
        this.insert = dialect == SqlDialect.POSTGRESQL
                ? insertCols
                        + " ON CONFLICT (task_type, dedup_key) WHERE dedup_key IS NOT NULL DO NOTHING RETURNING id,"
                        + " pg_notify('"
                        + channel(table) + "', '')"
                : insertCols;
        this.findDedup = "SELECT id FROM " + table + " WHERE task_type = ? AND dedup_key = ?" + dialect.lockingRead();
        this.find = "SELECT " + COLUMNS + " FROM " + table + " WHERE id = ?";
        String due = "SELECT id FROM " + table + " WHERE due_at <= " + now + " ORDER BY due_at";
        this.claim = switch (dialect) {
            case POSTGRESQL ->
                "UPDATE " + table + " SET state = 'R', owner = ?, runs = runs + 1, due_at = " + nowPlus
                        + ", updated_at = " + now + " WHERE id IN (" + due + " LIMIT ? FOR UPDATE SKIP LOCKED)"
                        + " RETURNING id, task_type, task_key, payload, runs, run_base";
            case MYSQL ->
                "SELECT id, task_type, task_key, payload, runs, run_base FROM " + table + " WHERE due_at <= " + now
                        + " ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED";
            case H2 ->
                "SELECT id, task_type, task_key, payload, runs, run_base FROM " + table + " WHERE due_at <= " + now
                        + " ORDER BY due_at FETCH FIRST ? ROWS ONLY FOR UPDATE SKIP LOCKED";
        };
        String mine = " WHERE id = ? AND state = 'R' AND owner = ? AND runs = ?";
        this.extend = "UPDATE " + table + " SET due_at = " + nowPlus + mine;
        this.succeed = "UPDATE " + table + " SET state = 'S', due_at = NULL, updated_at = " + now + mine;
        this.retryLater = "UPDATE " + table + " SET state = 'P', due_at = " + nowPlus
                + ", last_error = ?, updated_at = " + now + mine;
        this.block = "UPDATE " + table + " SET state = 'B', due_at = NULL, last_error = ?, updated_at = " + now + mine;
        String reopen = "UPDATE " + table + " SET state = 'P', run_base = runs, due_at = " + now + ", updated_at = "
                + now + " WHERE state = 'B'";
        this.unblock = reopen + " AND id = ?";
        this.unblockAll = reopen + " AND task_type = ?";
        this.unblockEvery = reopen;
        this.cancel = "UPDATE " + table + " SET state = 'C', due_at = NULL, updated_at = " + now
                + " WHERE id = ? AND state IN ('P', 'B')";
        this.exists = "SELECT 1 FROM " + table + " WHERE id = ?";
        this.stats = "SELECT task_type, state, COUNT(*), MIN(due_at) FROM " + table
                + " GROUP BY task_type, state ORDER BY task_type, state";
        this.purge = dialect.deleteLimited(table, "state = 'S' AND updated_at < " + nowPlus);
    }

    /** The PostgreSQL notification channel of a table: its name in lower case, as LISTEN folds it. */
    static String channel(String table) {
        return table.toLowerCase(java.util.Locale.ROOT);
    }

    /** The second step of a claim on MySQL/H2: the rows locked by {@link #claim}, moved to RUNNING. */
    String markRunning(int n) {
        return "UPDATE " + table + " SET state = 'R', owner = ?, runs = runs + 1, due_at = "
                + dialect.nowPlusMillisParam() + ", updated_at = " + dialect.now() + " WHERE id IN ("
                + "?, ".repeat(n - 1) + "?)";
    }

    /**
     * Completes {@code n} tasks of one owner: binds the owner, the n ids, then n (id, runs) pairs.
     * The plain id list lets every database find the rows by primary key; the pairs are the guard.
     */
    String succeedAll(int n) {
        return "UPDATE " + table + " SET state = 'S', due_at = NULL, updated_at = " + dialect.now()
                + " WHERE owner = ? AND state = 'R' AND id IN (" + "?, ".repeat(n - 1) + "?) AND (id, runs) IN ("
                + "(?, ?), ".repeat(n - 1) + "(?, ?))" + (dialect == SqlDialect.POSTGRESQL ? " RETURNING id" : "");
    }

    /** Reads (id, state, owner, runs) of {@code n} tasks. */
    String states(int n) {
        return "SELECT id, state, owner, runs FROM " + table + " WHERE id IN (" + "?, ".repeat(n - 1) + "?)";
    }

    /**
     * A page of tasks in one state. On PostgreSQL the open index leaves RUNNING tasks out (a claim
     * adds no entry there); they all have a lease end, so their page reads the due index instead.
     */
    String list(boolean byType, TaskState state) {
        String where = " WHERE state = ?" + (byType ? " AND task_type = ?" : "")
                + (state == TaskState.RUNNING && dialect == SqlDialect.POSTGRESQL ? " AND due_at IS NOT NULL" : "")
                + " AND id > ? ORDER BY id";
        return "SELECT " + COLUMNS + " FROM " + table + where
                + (dialect == SqlDialect.H2 ? " FETCH FIRST ? ROWS ONLY" : " LIMIT ?");
    }

    RetryTask task(ResultSet rs) throws SQLException {
        int runs = rs.getInt(6);
        return new RetryTask(
                rs.getLong(1),
                JdbcText.read(rs, 2, dialect),
                rs.getString(3),
                JdbcText.read(rs, 4, dialect),
                TaskState.ofCode(rs.getString(5).charAt(0)),
                runs - rs.getInt(7),
                instant(rs, 8),
                rs.getString(9),
                instant(rs, 10),
                instant(rs, 11),
                rs.getBytes(12));
    }

    Instant instant(ResultSet rs, int index) throws SQLException {
        if (dialect == SqlDialect.MYSQL) {
            LocalDateTime t = rs.getObject(index, LocalDateTime.class);
            return t == null ? null : t.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime t = rs.getObject(index, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }
}
