package io.dupguard.bench.lock;

import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.jdbc.UniqueViolation;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The two hand-written ceilings of the JDBC lock provider, both
 * polling with {@link Polling} when refused, both autocommit, one pool checkout per statement pair:
 *
 * <ul>
 *   <li><b>lean</b>: its own minimal lease row (name, owner, expiry; no fence, no locked-at).
 *       Acquire = {@code UPDATE … SET owner = ?, expires_at = now + lease WHERE name = ? AND
 *       expires_at <= now}; no row updated ⇒ {@code INSERT} if absent (the first lock of a name);
 *       neither ⇒ held. Release = {@code UPDATE … SET expires_at = now WHERE name = ? AND owner = ?}.
 *   <li><b>same-table</b>: the same statements on dupguard's lock table (its shipped DDL under
 *       another name), with what that row carries: the fence incremented and the locked-at time
 *       set by the acquire, the owner cleared by the release.
 * </ul>
 */
final class LeaseRowLocks {
    static final String LEAN = "hand-written lean lease row";
    static final String SAME_TABLE = "hand-written same-table";
    static final String LEAN_TABLE = "bench_lock_lean";
    static final String SAME_TABLE_NAME = "bench_lock_same";
    static final long LEASE_MILLIS = 30_000;

    private LeaseRowLocks() {}

    /** Creates (or empties) both tables. */
    static void createTables(DataSource ds, boolean postgres) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + LEAN_TABLE);
            st.execute(
                    postgres
                            ? "CREATE TABLE " + LEAN_TABLE + " (name VARCHAR(200) COLLATE \"C\" PRIMARY KEY,"
                                    + " owner VARCHAR(64) NOT NULL, expires_at TIMESTAMPTZ NOT NULL)"
                            : "CREATE TABLE " + LEAN_TABLE + " (name VARBINARY(800) NOT NULL PRIMARY KEY,"
                                    + " owner VARCHAR(64) CHARACTER SET ascii NOT NULL, expires_at DATETIME(6) NOT NULL)"
                                    + " ENGINE = InnoDB");
            st.execute("DROP TABLE IF EXISTS " + SAME_TABLE_NAME);
        }
        JdbcLockProvider.builder(ds)
                .tableName(SAME_TABLE_NAME)
                .createSchemaIfMissing(true)
                .build()
                .dialect(); // creates the table from the shipped DDL
    }

    static LockImpl lean(DataSource ds, boolean postgres) {
        String now = now(postgres);
        String plus = plusMillis(postgres);
        String t = LEAN_TABLE;
        Statements s = new Statements(
                "UPDATE " + t + " SET owner = ?, expires_at = " + plus + " WHERE name = ? AND expires_at <= " + now,
                insertIfAbsent(postgres, t, "(owner, expires_at, name) VALUES (?, " + plus + ", ?)"),
                "UPDATE " + t + " SET expires_at = " + now + " WHERE name = ? AND owner = ?");
        return new Impl(
                LEAN,
                LockImpl.Role.CEILING,
                "its own minimal row (name, owner, expiry; no fence): acquire = `UPDATE … SET owner, expires_at ="
                        + " now + 30 s WHERE name = ? AND expires_at <= now` (the first lock of a name: an `INSERT`"
                        + " if absent); release = `UPDATE … SET expires_at = now WHERE name = ? AND owner = ?`;"
                        + " autocommit, one pool checkout per statement.",
                Polling.description(),
                () -> name -> Polling.acquire(() -> s.tryLock(ds, name, postgres)));
    }

    static LockImpl sameTable(DataSource ds, boolean postgres) {
        String now = now(postgres);
        String plus = plusMillis(postgres);
        String t = SAME_TABLE_NAME;
        Statements s = new Statements(
                "UPDATE " + t + " SET owner = ?, lease_until = " + plus + ", fence = fence + 1, locked_at = " + now
                        + " WHERE name = ? AND (owner IS NULL OR lease_until <= " + now + ")",
                insertIfAbsent(
                        postgres,
                        t,
                        "(owner, lease_until, name, fence, locked_at) VALUES (?, " + plus + ", ?, 1, " + now + ")"),
                "UPDATE " + t + " SET owner = NULL, lease_until = " + now + " WHERE name = ? AND owner = ?");
        return new Impl(
                SAME_TABLE,
                LockImpl.Role.CEILING_SAME_TABLE,
                "dupguard's lock table (shipped DDL), the lean row's statements with what that row carries:"
                        + " acquire = `UPDATE … SET owner, lease_until, fence = fence + 1, locked_at WHERE name = ?"
                        + " AND (owner IS NULL OR lease_until <= now)` (first lock of a name: `INSERT` if absent);"
                        + " release = `UPDATE … SET owner = NULL, lease_until = now WHERE name = ? AND owner = ?`;"
                        + " autocommit, one pool checkout per statement. No fence is read back.",
                Polling.description(),
                () -> name -> Polling.acquire(() -> s.tryLock(ds, name, postgres)));
    }

    private static String now(boolean postgres) {
        return postgres ? "clock_timestamp()" : "UTC_TIMESTAMP(6)";
    }

    private static String plusMillis(boolean postgres) {
        return postgres
                ? "(clock_timestamp() + (? * INTERVAL '1 millisecond'))"
                : "(UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)";
    }

    private static String insertIfAbsent(boolean postgres, String table, String columnsAndValues) {
        return postgres
                ? "INSERT INTO " + table + " " + columnsAndValues + " ON CONFLICT (name) DO NOTHING"
                : "INSERT IGNORE INTO " + table + " " + columnsAndValues;
    }

    /** Take-over (params owner, lease, name), insert-if-absent (same params) and release (name, owner). */
    private record Statements(String takeOver, String insert, String release) {

        LockImpl.Held tryLock(DataSource ds, String name, boolean postgres) throws SQLException {
            String owner = UUID.randomUUID().toString();
            try (Connection c = ds.getConnection()) {
                if (update(c, takeOver, owner, name) == 1 || insert(c, owner, name, postgres)) {
                    return () -> release(ds, name, owner);
                }
                return null;
            }
        }

        private boolean insert(Connection c, String owner, String name, boolean postgres) throws SQLException {
            try {
                return update(c, insert, owner, name) == 1;
            } catch (SQLException e) {
                if (!postgres && UniqueViolation.test(e)) {
                    return false;
                }
                throw e;
            }
        }

        private static int update(Connection c, String sql, String owner, String name) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, owner);
                ps.setLong(2, LEASE_MILLIS);
                ps.setString(3, name);
                return ps.executeUpdate();
            }
        }

        private void release(DataSource ds, String name, String owner) throws SQLException {
            try (Connection c = ds.getConnection();
                    PreparedStatement ps = c.prepareStatement(release)) {
                ps.setString(1, name);
                ps.setString(2, owner);
                if (ps.executeUpdate() != 1) {
                    throw new IllegalStateException("lost lock " + name);
                }
            }
        }
    }
}
