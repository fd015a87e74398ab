package io.dupguard.jdbc;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Optimistic, replay-safe updates on the application's own tables (guarantees O1, O2, O4). Each is one
 * guarded {@code UPDATE}; {@code true} means this caller's write happened, {@code false} that the
 * guard failed (lost the race, not enough stock, stale balance) — nothing was changed. Table and
 * column names must be plain identifiers; values are always bound. A connection to a read-only
 * server (a replica or standby) is refused with {@link io.dupguard.ReadOnlyStoreException}: asked
 * once per physical connection, and mapped from the write error after that (guarantee K7).
 *
 * <p>In autocommit, an update the database rolls back as transient — a deadlock victim, or on a
 * Galera cluster a write that lost certification to another node's — runs again, guard and all, a
 * bounded number of times. In the caller's transaction such an {@link SQLException} reaches the
 * caller: the whole transaction was rolled back and must run again.
 */
public final class Cas {
    private Cas() {}

    /**
     * Version CAS (O1): {@code UPDATE t SET <set>, version = version + 1 WHERE id = ? AND version =
     * ?}. {@code set} holds column assignments with {@code ?} placeholders written by the
     * application, bound to {@code params}.
     *
     * @param c the connection, in the caller's transaction or autocommit; not null, not committed
     *     here
     * @param table the table; a plain SQL identifier
     * @param idColumn the row id column; a plain SQL identifier
     * @param id the row's id
     * @param versionColumn the version column; a plain SQL identifier
     * @param expectedVersion the version the caller read
     * @param set the column assignments with {@code ?} placeholders, written by the application
     *     (never user input); not blank
     * @param params the values bound to {@code set}'s placeholders, in order
     * @return true if the row had {@code expectedVersion} and was updated; false if another writer
     *     changed it first or it does not exist
     * @throws SQLException if the statement fails
     */
    public static boolean updateVersioned(
            Connection c,
            String table,
            String idColumn,
            Object id,
            String versionColumn,
            long expectedVersion,
            String set,
            Object... params)
            throws SQLException {
        String v = SqlIdentifier.check(versionColumn, "versionColumn");
        String sql = "UPDATE " + SqlIdentifier.check(table, "table") + " SET " + requireSet(set) + ", " + v + " = " + v
                + " + 1 WHERE " + SqlIdentifier.check(idColumn, "idColumn") + " = ? AND " + v + " = ?";
        return ReadOnlyCheck.update(c, sql, ps -> {
                    int i = 1;
                    for (Object p : params) {
                        ps.setObject(i++, p);
                    }
                    ps.setObject(i++, id);
                    ps.setLong(i, expectedVersion);
                })
                == 1;
    }

    /**
     * Conditional deduction (O2): {@code UPDATE t SET col = col - ? WHERE id = ? AND col >= ?} — never
     * below zero, however many deductions race.
     *
     * @param c the connection, in the caller's transaction or autocommit; not null, not committed
     *     here
     * @param table the table; a plain SQL identifier
     * @param idColumn the row id column; a plain SQL identifier
     * @param id the row's id
     * @param column the numeric column to deduct from; a plain SQL identifier
     * @param amount the amount to deduct; not null, positive
     * @return true if the row held at least {@code amount} and was updated; false otherwise
     *     (nothing changed)
     * @throws IllegalArgumentException if {@code amount} is not positive
     * @throws SQLException if the statement fails
     */
    public static boolean deduct(
            Connection c, String table, String idColumn, Object id, String column, BigDecimal amount)
            throws SQLException {
        Objects.requireNonNull(amount, "amount");
        if (amount.signum() <= 0) {
            throw new IllegalArgumentException("amount must be positive, was " + amount);
        }
        String col = SqlIdentifier.check(column, "column");
        String sql = "UPDATE " + SqlIdentifier.check(table, "table") + " SET " + col + " = " + col + " - ? WHERE "
                + SqlIdentifier.check(idColumn, "idColumn") + " = ? AND " + col + " >= ?";
        return ReadOnlyCheck.update(c, sql, ps -> {
                    ps.setBigDecimal(1, amount);
                    ps.setObject(2, id);
                    ps.setBigDecimal(3, amount);
                })
                == 1;
    }

    /**
     * {@link #deduct(Connection, String, String, Object, String, BigDecimal)} for whole units.
     *
     * @param c the connection, in the caller's transaction or autocommit; not null, not committed
     *     here
     * @param table the table; a plain SQL identifier
     * @param idColumn the row id column; a plain SQL identifier
     * @param id the row's id
     * @param column the numeric column to deduct from; a plain SQL identifier
     * @param amount the amount to deduct; positive
     * @return true if the row held at least {@code amount} and was updated; false otherwise
     *     (nothing changed)
     * @throws SQLException if the statement fails
     */
    public static boolean deduct(Connection c, String table, String idColumn, Object id, String column, long amount)
            throws SQLException {
        return deduct(c, table, idColumn, id, column, BigDecimal.valueOf(amount));
    }

    /**
     * Absolute compare-and-set (O4): {@code UPDATE t SET col = :new WHERE id = ? AND col = :expected}.
     * For balances on a path that can be replayed: a replay carries the old expected value and
     * fails, where {@code amount = amount + x} would add twice.
     *
     * @param c the connection, in the caller's transaction or autocommit; not null, not committed
     *     here
     * @param table the table; a plain SQL identifier
     * @param idColumn the row id column; a plain SQL identifier
     * @param id the row's id
     * @param column the column to set; a plain SQL identifier
     * @param expected the value the caller read (compared with SQL {@code =}, so null never
     *     matches)
     * @param newValue the value to write
     * @return true if the row still held {@code expected} and was updated; false otherwise (nothing
     *     changed)
     * @throws SQLException if the statement fails
     */
    public static boolean compareAndSet(
            Connection c, String table, String idColumn, Object id, String column, Object expected, Object newValue)
            throws SQLException {
        String col = SqlIdentifier.check(column, "column");
        String sql = "UPDATE " + SqlIdentifier.check(table, "table") + " SET " + col + " = ? WHERE "
                + SqlIdentifier.check(idColumn, "idColumn") + " = ? AND " + col + " = ?";
        return ReadOnlyCheck.update(c, sql, ps -> {
                    ps.setObject(1, newValue);
                    ps.setObject(2, id);
                    ps.setObject(3, expected);
                })
                == 1;
    }

    private static String requireSet(String set) {
        if (set == null || set.isBlank()) {
            throw new IllegalArgumentException("set must name at least one column assignment");
        }
        return set;
    }
}
