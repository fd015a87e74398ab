package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;

/**
 * The statements of {@link JdbcLockProvider} for one dialect and table, and how each is bound and
 * run. Every statement is a single-row operation on the primary key, so it is atomic on its own
 * and needs no transaction around it.
 */
final class LockSql {
    final SqlDialect dialect;
    /** The acquire statement; binds (owner, lease millis, name) first. */
    private final String acquire;
    /** H2 only: creates the row of a name never locked before. */
    private final String insert;
    /**
     * MySQL/MariaDB only: takes a free or expired row that exists, the common case of a re-used name,
     * with a plain guarded {@code UPDATE} whose insert id is the new fence; binds (owner, lease
     * millis, name). No row taken ⇒ the upsert ({@link #acquire}) decides between new and held.
     */
    private final String takeFree;

    private final String fenceOf;
    /** Binds (new owner, lease millis, name, old owner); returns or reports the new fence. */
    private final String transfer;

    private final String extend;
    private final String unlock;
    private final String isHeld;
    // Set once the driver has reported a fence through LAST_INSERT_ID; until then "no id" is
    // double-checked by reading the row, so a driver that never reports ids still works.
    private volatile boolean driverReportsInsertId;

    LockSql(SqlDialect dialect, String table) {
        this.dialect = dialect;
        String now = dialect.now();
        String nowPlus = dialect.nowPlusMillisParam();
        String free = "(owner IS NULL OR lease_until <= " + now + ")";
        String insertRow = "INSERT INTO " + table + " (owner, lease_until, name, fence, locked_at) VALUES (?, "
                + nowPlus + ", ?, " + (dialect == SqlDialect.MYSQL ? "LAST_INSERT_ID(1)" : "1") + ", " + now + ")";
        this.insert = insertRow;
        this.acquire = switch (dialect) {
            // New name, free row and held row in one statement; a held row returns nothing.
            case POSTGRESQL ->
                insertRow + " ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner,"
                        + " lease_until = EXCLUDED.lease_until, fence = " + table + ".fence + 1,"
                        + " locked_at = EXCLUDED.locked_at WHERE " + table + ".owner IS NULL OR " + table
                        + ".lease_until <= " + now + " RETURNING " + table + ".fence";
            // A data change delta table returns the new fence from the update itself.
            case H2 ->
                "SELECT fence FROM FINAL TABLE (UPDATE " + table + " SET owner = ?, lease_until = "
                        + nowPlus + ", fence = fence + 1, locked_at = " + now + " WHERE name = ? AND " + free
                        + ")";
            // The outcome travels in the OK packet's insert id: 1 = inserted, n > 1 = taken
            // over with fence n, 0 = held. Assignments run left to right (or all on the old
            // row with MariaDB's SIMULTANEOUS_ASSIGNMENT); "owner <=> ?" keeps the lease
            // update right in both modes after owner has changed.
            case MYSQL ->
                insertRow + " ON DUPLICATE KEY UPDATE"
                        + " fence = IF(" + free + ", LAST_INSERT_ID(fence + 1), fence + LAST_INSERT_ID(0)),"
                        + " locked_at = IF(" + free + ", " + now + ", locked_at),"
                        + " owner = IF(" + free + ", ?, owner),"
                        + " lease_until = IF(owner <=> ? OR " + free + ", " + nowPlus + ", lease_until)";
        };
        this.takeFree = dialect == SqlDialect.MYSQL
                ? "UPDATE " + table + " SET owner = ?, lease_until = " + nowPlus
                        + ", fence = LAST_INSERT_ID(fence + 1), locked_at = " + now + " WHERE name = ? AND " + free
                : null;
        this.fenceOf = "SELECT fence FROM " + table + " WHERE name = ? AND owner = ?";
        String transferSet = "UPDATE " + table + " SET owner = ?, lease_until = " + nowPlus + ", fence = "
                + (dialect == SqlDialect.MYSQL ? "LAST_INSERT_ID(fence + 1)" : "fence + 1") + ", locked_at = " + now
                + " WHERE name = ? AND owner = ? AND lease_until > " + now;
        this.transfer = switch (dialect) {
            case POSTGRESQL -> transferSet + " RETURNING fence";
            case H2 -> "SELECT fence FROM FINAL TABLE (" + transferSet + ")";
            case MYSQL -> transferSet; // the new fence travels as the statement's insert id
        };
        this.extend = "UPDATE " + table + " SET lease_until = " + nowPlus
                + " WHERE name = ? AND owner = ? AND lease_until > " + now;
        // PostgreSQL: the release commits without waiting for its WAL flush (synchronous_commit off
        // for this statement's own transaction only, set by the statement itself). Safe for a
        // release alone: one lost in a crash leaves the lock held until its lease ends, exactly
        // like a crashed holder; it changes no fence, and the next acquisition (a synchronous
        // commit) flushes the WAL up to and including it.
        this.unlock = dialect == SqlDialect.POSTGRESQL
                ? "UPDATE " + table + " SET owner = NULL, lease_until = " + now
                        + " FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit"
                        + " WHERE name = ? AND owner = ?"
                : "UPDATE " + table + " SET owner = NULL, lease_until = " + now + " WHERE name = ? AND owner = ?";
        this.isHeld = "SELECT 1 FROM " + table + " WHERE name = ? AND owner = ? AND lease_until > " + now;
    }

    /**
     * Takes the lock for {@code token} if the row is free, expired or missing.
     *
     * @return the new fence, or empty if another owner holds an unexpired lease
     */
    OptionalLong tryLock(Connection c, String name, String token, long leaseMillis) throws SQLException {
        return switch (dialect) {
            case POSTGRESQL -> queryFence(c, name, token, leaseMillis);
            case MYSQL -> {
                // A re-used, free name: one plain UPDATE, cheaper on InnoDB than the upsert's failed
                // insert + update. New or held names: the upsert, which tells the two apart.
                OptionalLong fence = takeFreeReportingInsertId(c, name, token, leaseMillis);
                yield fence.isPresent() ? fence : upsertReportingInsertId(c, name, token, leaseMillis);
            }
            case H2 -> {
                OptionalLong fence = queryFence(c, name, token, leaseMillis);
                yield fence.isPresent() ? fence : insertNew(c, name, token, leaseMillis);
            }
        };
    }

    private OptionalLong queryFence(Connection c, String name, String token, long leaseMillis) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(acquire)) {
            bindAcquire(ps, name, token, leaseMillis);
            return queryOneFence(ps);
        }
    }

    /**
     * No free row: the name is new or someone holds it. Only the insert can tell, and only a unique
     * violation means "held" (guarantee K5). Updating first keeps re-used names at one statement.
     */
    private OptionalLong insertNew(Connection c, String name, String token, long leaseMillis) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insert)) {
            bindAcquire(ps, name, token, leaseMillis);
            return ps.executeUpdate() == 1 ? OptionalLong.of(1) : OptionalLong.empty();
        } catch (SQLException e) {
            if (UniqueViolation.test(e)) {
                return OptionalLong.empty();
            }
            throw e;
        }
    }

    private OptionalLong takeFreeReportingInsertId(Connection c, String name, String token, long leaseMillis)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(takeFree, Statement.RETURN_GENERATED_KEYS)) {
            bindAcquire(ps, name, token, leaseMillis);
            if (ps.executeUpdate() == 0) {
                return OptionalLong.empty();
            }
            OptionalLong reported = reportedFence(ps);
            if (reported.isPresent()) {
                return reported;
            }
        }
        return fenceOf(c, name, token);
    }

    private OptionalLong upsertReportingInsertId(Connection c, String name, String token, long leaseMillis)
            throws SQLException {
        int rows;
        try (PreparedStatement ps = c.prepareStatement(acquire, Statement.RETURN_GENERATED_KEYS)) {
            bindAcquire(ps, name, token, leaseMillis);
            ps.setString(4, token);
            ps.setString(5, token);
            ps.setLong(6, leaseMillis);
            rows = ps.executeUpdate();
            OptionalLong reported = reportedFence(ps);
            if (reported.isPresent()) {
                return reported;
            }
        }
        if (rows == 0 || driverReportsInsertId) {
            return OptionalLong.empty();
        }
        return fenceOf(c, name, token);
    }

    /**
     * Moves the lock from {@code fromToken}, if it holds an unexpired lease, to {@code toToken} with
     * a new lease and the next fence.
     *
     * @return the new fence, or empty if {@code fromToken} does not hold the lock
     */
    OptionalLong transfer(Connection c, String name, String fromToken, String toToken, long leaseMillis)
            throws SQLException {
        if (dialect != SqlDialect.MYSQL) {
            try (PreparedStatement ps = c.prepareStatement(transfer)) {
                bindTransfer(ps, name, fromToken, toToken, leaseMillis);
                return queryOneFence(ps);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(transfer, Statement.RETURN_GENERATED_KEYS)) {
            bindTransfer(ps, name, fromToken, toToken, leaseMillis);
            if (ps.executeUpdate() == 0) {
                return OptionalLong.empty();
            }
            OptionalLong reported = reportedFence(ps);
            if (reported.isPresent()) {
                return reported;
            }
        }
        return fenceOf(c, name, toToken); // the update moved the row, but the driver reports no id
    }

    /** The fence a statement returns as its single row and column; empty for no row. */
    private static OptionalLong queryOneFence(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
        }
    }

    /** MySQL/MariaDB: the fence the statement set through {@code LAST_INSERT_ID(…)}, if the driver reports it. */
    private OptionalLong reportedFence(PreparedStatement ps) throws SQLException {
        try (ResultSet keys = ps.getGeneratedKeys()) {
            if (keys.next() && keys.getLong(1) > 0) {
                driverReportsInsertId = true;
                return OptionalLong.of(keys.getLong(1));
            }
        }
        return OptionalLong.empty();
    }

    /** The fence of the row {@code token} holds; empty if it holds none. */
    private OptionalLong fenceOf(Connection c, String name, String token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(fenceOf)) {
            bindName(ps, 1, name);
            ps.setString(2, token);
            return queryOneFence(ps);
        }
    }

    private void bindTransfer(PreparedStatement ps, String name, String fromToken, String toToken, long leaseMillis)
            throws SQLException {
        ps.setString(1, toToken);
        ps.setLong(2, leaseMillis);
        bindName(ps, 3, name);
        ps.setString(4, fromToken);
    }

    boolean extend(Connection c, String name, String token, long leaseMillis) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(extend)) {
            ps.setLong(1, leaseMillis);
            bindName(ps, 2, name);
            ps.setString(3, token);
            return ps.executeUpdate() == 1;
        }
    }

    void unlock(Connection c, String name, String token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(unlock)) {
            bindName(ps, 1, name);
            ps.setString(2, token);
            ps.executeUpdate();
        }
    }

    boolean isHeld(Connection c, String name, String token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(isHeld)) {
            bindName(ps, 1, name);
            ps.setString(2, token);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private void bindAcquire(PreparedStatement ps, String name, String token, long leaseMillis) throws SQLException {
        ps.setString(1, token);
        ps.setLong(2, leaseMillis);
        bindName(ps, 3, name);
    }

    /** MySQL/MariaDB store the name as VARBINARY, so it is compared byte for byte (guarantee K6, {@link JdbcText}). */
    private void bindName(PreparedStatement ps, int index, String name) throws SQLException {
        JdbcText.bind(ps, index, name, dialect);
    }
}
