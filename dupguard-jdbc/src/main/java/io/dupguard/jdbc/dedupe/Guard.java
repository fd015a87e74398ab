package io.dupguard.jdbc.dedupe;

import io.dupguard.jdbc.SqlDialect;
import io.dupguard.jdbc.UniqueViolation;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Adds the unique index without blocking writers, and closes the race with them:
 *
 * <ol>
 *   <li>a valid unique index of that name already there is success; an INVALID one (a failed
 *       {@code CREATE INDEX CONCURRENTLY}) that never got ready is dropped concurrently;
 *   <li>a {@link RaceFence} makes the database refuse new duplicates from here on;
 *   <li>duplicates still in the table (inserted by writers since the last batch) are cleaned the
 *       same way {@code apply} cleans — backup first — without a rate limit, up to a bound;
 *   <li>the index is built online: PostgreSQL {@code CREATE UNIQUE INDEX CONCURRENTLY}, MySQL /
 *       MariaDB {@code ALGORITHM=INPLACE, LOCK=NONE} with a short metadata-lock wait (so writers
 *       never queue behind it), H2 a plain {@code CREATE UNIQUE INDEX};
 *   <li>a build that fails because a writer inserted a duplicate in between (or lost a lock wait)
 *       is tried again from step 2. On PostgreSQL a build that failed in its validation scan leaves
 *       an INVALID index that already refuses new duplicates; it is kept, the old duplicates are
 *       cleaned and the index is rebuilt with {@code REINDEX INDEX CONCURRENTLY}, which then cannot
 *       lose the race. An INVALID index that never got ready is dropped concurrently.
 * </ol>
 *
 * Only a valid unique index is success; running out of attempts is reported, never silent. The
 * fence is removed at the end whatever happened.
 */
final class Guard {
    record Settings(int attempts, long maxCleanRows, Duration lockWait, Applier.Settings cleanup) {}

    private enum State {
        ABSENT,
        VALID,
        /** Left by a failed concurrent build before it was ready: neither used nor enforced (PostgreSQL). */
        INVALID,
        /** Left by a failed concurrent build after it was ready: not used, but refuses duplicates (PostgreSQL). */
        INVALID_ENFORCING,
        NOT_UNIQUE
    }

    private Guard() {}

    static GuardResult guard(Connection c, Target t, Settings s) throws SQLException {
        String columns = indexColumns(t);
        if (t.dialect() == SqlDialect.MYSQL) {
            // A DDL waiting for the metadata lock makes every later writer queue behind it, so
            // each one waits briefly and the loop tries again instead.
            Sql.execute(
                    c,
                    "SET SESSION lock_wait_timeout = "
                            + Math.max(1, s.lockWait().toSeconds()));
        }
        State state = state(c, t);
        if (state == State.NOT_UNIQUE) {
            throw DedupeException.badInput("--index: index '" + t.indexName + "' exists on table '" + t.table()
                    + "' but is not unique; name another index with --index");
        }
        if (state == State.VALID) {
            return new GuardResult(t.indexName, true, 0, 0, 0, true);
        }
        RaceFence fence = new RaceFence(t);
        int dropped = 0;
        long cleaned = 0;
        try {
            retryTransient(s.attempts(), () -> fence.install(c, s.lockWait()));
            for (int attempt = 1; attempt <= s.attempts(); attempt++) {
                state = state(c, t);
                if (state == State.VALID) {
                    return new GuardResult(t.indexName, false, attempt - 1, dropped, cleaned, true);
                }
                if (state == State.INVALID) {
                    dropInvalid(c, t, t.indexName);
                    dropped++;
                    state = State.ABSENT;
                }
                // Counted once the fence stands: nothing can add to it any more (one pass fewer
                // than counting before the fence and again after it).
                long extra = Scanner.countExtra(c, t);
                if (attempt == 1 && extra > s.maxCleanRows()) {
                    throw DedupeException.failed(
                            "guard: table '" + t.table() + "' still has " + extra + " duplicate rows under"
                                    + " comparison " + t.compareSpec() + ", more than guard cleans on its own ("
                                    + s.maxCleanRows() + "); run 'dedupe apply' first. No index was built.",
                            null);
                }
                if (extra > 0) {
                    cleaned += Applier.apply(c, t, s.cleanup()).deleted();
                    long left = t.merge.isEmpty() ? 0 : Scanner.countExtra(c, t);
                    if (left > 0) {
                        throw DedupeException.failed(
                                "guard: " + left + " duplicate rows remain in groups whose --merge-check columns"
                                        + " differ; resolve them by hand (see 'dedupe scan'), then run guard again."
                                        + " No index was built.",
                                null);
                    }
                }
                try {
                    if (state == State.INVALID_ENFORCING) {
                        // A concurrent build that failed in its validation scan leaves an index
                        // that already refuses new duplicates; rebuild it in place.
                        Sql.execute(c, "REINDEX INDEX CONCURRENTLY " + t.indexName);
                    } else {
                        build(c, t, columns);
                    }
                } catch (SQLException e) {
                    dropped += dropReindexLeftovers(c, t);
                    if (!(UniqueViolation.test(e) || Sql.isTransient(e) || isMysqlDuplicate(e))) {
                        State left = state(c, t);
                        if (left == State.INVALID || left == State.INVALID_ENFORCING) {
                            dropInvalid(c, t, t.indexName);
                        }
                        throw e;
                    }
                    continue;
                }
                if (state(c, t) == State.VALID) {
                    return new GuardResult(t.indexName, false, attempt, dropped, cleaned, true);
                }
            }
            return new GuardResult(t.indexName, false, s.attempts(), dropped, cleaned, state(c, t) == State.VALID);
        } finally {
            retryTransient(s.attempts(), () -> fence.remove(c, s.lockWait()));
        }
    }

    private interface Step {
        void run() throws SQLException;
    }

    private static void retryTransient(int attempts, Step step) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                step.run();
                return;
            } catch (SQLException e) {
                if (!Sql.isTransient(e) || attempt >= attempts) {
                    throw e;
                }
            }
        }
    }

    /**
     * The index's column list. Only comparisons the database can enforce with a unique index are
     * accepted; on MySQL/MariaDB the column's collation must agree with the comparison (K6).
     */
    static String indexColumns(Target t) {
        if (t.dialect() == SqlDialect.POSTGRESQL) {
            return t.key.stream()
                    .map(col -> {
                        String e = t.keyExpr(null, col);
                        return e.equals(col.name()) ? e : "(" + e + ")";
                    })
                    .collect(Collectors.joining(", "));
        }
        for (TableInfo.Column col : t.key) {
            if (!col.isText() || t.compare.isEmpty()) {
                if (t.dialect() == SqlDialect.MYSQL && col.isText() && col.caseInsensitiveCollation()) {
                    throw DedupeException.badInput("guard: column '" + col.name() + "' has the case-insensitive"
                            + " collation " + col.collation() + ", so a unique index would refuse 'DB00x' next to"
                            + " 'Db00X' although --compare exact keeps both (guarantee K6). Use --compare ignore-case if"
                            + " that is what the key means, or give the column a binary collation first (ALTER TABLE "
                            + t.table() + " MODIFY " + col.name() + " ... COLLATE utf8mb4_bin).");
                }
                continue;
            }
            boolean onlyCase = t.compare.size() == 1 && t.compare.contains(Comparison.IGNORE_CASE);
            if (t.dialect() == SqlDialect.MYSQL && onlyCase && col.caseInsensitiveCollation()) {
                continue;
            }
            throw DedupeException.badInput("guard: " + (t.dialect() == SqlDialect.MYSQL ? "MySQL/MariaDB" : "H2")
                    + " cannot enforce --compare " + t.compareSpec() + " on column '" + col.name() + "'"
                    + (col.collation() != null ? " (collation " + col.collation() + ")" : "")
                    + " with a unique index; scan and apply work, but the index needs"
                    + (t.dialect() == SqlDialect.MYSQL
                            ? " a case-insensitive collation (for ignore-case) or a binary one (for exact)"
                            : " --compare exact")
                    + ".");
        }
        return t.key.stream().map(TableInfo.Column::name).collect(Collectors.joining(", "));
    }

    private static void build(Connection c, Target t, String columns) throws SQLException {
        switch (t.dialect()) {
            case POSTGRESQL ->
                Sql.execute(
                        c,
                        "CREATE UNIQUE INDEX CONCURRENTLY " + t.indexName + " ON " + t.table() + " (" + columns + ")");
            case MYSQL ->
                Sql.execute(
                        c,
                        "ALTER TABLE " + t.table() + " ADD UNIQUE INDEX " + t.indexName + " (" + columns
                                + "), ALGORITHM=INPLACE, LOCK=NONE");
            case H2 -> Sql.execute(c, "CREATE UNIQUE INDEX " + t.indexName + " ON " + t.table() + " (" + columns + ")");
        }
    }

    private static void dropInvalid(Connection c, Target t, String index) throws SQLException {
        if (t.dialect() == SqlDialect.POSTGRESQL) {
            Sql.execute(c, "DROP INDEX CONCURRENTLY IF EXISTS " + index);
        }
    }

    /** A failed {@code REINDEX CONCURRENTLY} leaves its new copy behind as {@code <index>_ccnew…}, invalid. */
    private static int dropReindexLeftovers(Connection c, Target t) throws SQLException {
        if (t.dialect() != SqlDialect.POSTGRESQL) {
            return 0;
        }
        java.util.List<String> leftovers = new java.util.ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT x.relname FROM pg_index i JOIN pg_class x"
                + " ON x.oid = i.indexrelid JOIN pg_namespace n ON n.oid = x.relnamespace WHERE NOT i.indisvalid"
                + " AND x.relname LIKE ? AND n.nspname = current_schema()")) {
            ps.setString(1, t.indexName.toLowerCase(Locale.ROOT) + "_ccnew%");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    leftovers.add(rs.getString(1));
                }
            }
        }
        for (String index : leftovers) {
            dropInvalid(c, t, index);
        }
        return leftovers.size();
    }

    private static boolean isMysqlDuplicate(SQLException e) {
        // ER_DUP_ENTRY during the online log replay, ER_DUP_UNKNOWN_IN_INDEX.
        return e.getErrorCode() == 1062 || e.getErrorCode() == 1859 || e.getErrorCode() == 1169;
    }

    private static State state(Connection c, Target t) throws SQLException {
        String sql =
                switch (t.dialect()) {
                    case POSTGRESQL ->
                        "SELECT CASE WHEN NOT i.indisunique THEN 'N' WHEN i.indisvalid AND i.indisready"
                                + " THEN 'V' ELSE 'I' END FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid"
                                + " JOIN pg_namespace n ON n.oid = x.relnamespace WHERE x.relname = ?"
                                + " AND n.nspname = current_schema()";
                    case MYSQL ->
                        "SELECT CASE WHEN MIN(NON_UNIQUE) = 0 THEN 'V' ELSE 'N' END FROM"
                                + " information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?"
                                + " AND INDEX_NAME = ? HAVING COUNT(*) > 0";
                    case H2 ->
                        "SELECT CASE WHEN INDEX_TYPE_NAME IN ('UNIQUE INDEX', 'PRIMARY KEY') THEN 'V'"
                                + " ELSE 'N' END FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_SCHEMA = SCHEMA()"
                                + " AND UPPER(INDEX_NAME) = UPPER(?)";
                };
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            if (t.dialect() == SqlDialect.MYSQL) {
                ps.setString(1, t.table());
                ps.setString(2, t.indexName);
            } else {
                ps.setString(
                        1, t.dialect() == SqlDialect.POSTGRESQL ? t.indexName.toLowerCase(Locale.ROOT) : t.indexName);
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return State.ABSENT;
                }
                return switch (rs.getString(1)) {
                    case "V" -> State.VALID;
                    case "I" -> State.INVALID;
                    case "R" -> State.INVALID_ENFORCING;
                    default -> State.NOT_UNIQUE;
                };
            }
        }
    }
}
