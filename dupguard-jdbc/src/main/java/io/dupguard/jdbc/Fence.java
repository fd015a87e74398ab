package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Guards a write to a row of your own table with a lock's fencing token, so a holder that paused
 * past its lease cannot overwrite the work of the holder that came after it (guarantee L5).
 *
 * <pre>{@code
 * Fence accounts = Fence.on("accounts", "id", "fence");   // once; identifiers are validated
 *
 * try (Lease lease = locks.acquire("account:" + id, options)) {
 *     long balance = readBalance(connection, id);
 *     boolean written = accounts.update(connection, id, lease.fencingToken(),
 *             "balance = ?", balance + amount);
 *     if (!written) throw new LeaseLostException(...);   // a newer holder got there first
 * }
 * }</pre>
 *
 * <p>The resource row carries a {@code BIGINT} column with the highest token that wrote it
 * ({@code DEFAULT 0}; NULL counts as "never fenced"). An update:
 *
 * <ol>
 *   <li>runs {@code UPDATE table SET <setClause>, fence = ? WHERE id = ? AND (fence <= ? OR fence IS
 *       NULL)} with the token bound to both fence parameters, on the caller's connection and in
 *       the caller's transaction;
 *   <li>returns true if a row was written. False means a newer token already wrote the row (this
 *       caller's lock was lost) — or that no row has this id.
 * </ol>
 *
 * <p>Equal tokens are accepted ({@code <=}, not {@code <}): one holder may write the row several
 * times, and a reentrant acquisition shares its token. Any older token is refused, because lock
 * tokens strictly increase per lock name. So every writer of a row must take the <b>same</b> lock
 * name, and fenced rows must exist before the first fenced write (insert them with fence 0).
 *
 * <p>The set clause is caller SQL spliced into the statement: it must contain only column
 * assignments with {@code ?} placeholders ({@code "balance = ?, updated_at = ?"}), never values
 * concatenated from input. The table and column names must be plain identifiers. A connection to
 * a read-only server (a replica or standby) is refused with {@link
 * io.dupguard.ReadOnlyStoreException} (guarantee K7). Immutable and thread-safe.
 */
public final class Fence {
    private final String table;
    private final String idColumn;
    private final String fenceColumn;

    private Fence(String table, String idColumn, String fenceColumn) {
        this.table = table;
        this.idColumn = idColumn;
        this.fenceColumn = fenceColumn;
    }

    /**
     * A fence on {@code table}, whose rows are identified by {@code idColumn} and carry the highest
     * token that wrote them in {@code fenceColumn}.
     *
     * @param table the guarded table; a plain SQL identifier
     * @param idColumn the row id column; a plain SQL identifier
     * @param fenceColumn the column holding the highest fencing token that wrote the row; a plain
     *     SQL identifier
     * @return an immutable, thread-safe fence
     * @throws IllegalArgumentException if a name is not a plain SQL identifier
     */
    public static Fence on(String table, String idColumn, String fenceColumn) {
        return new Fence(
                SqlIdentifier.check(table, "table"),
                SqlIdentifier.check(idColumn, "idColumn"),
                SqlIdentifier.check(fenceColumn, "fenceColumn"));
    }

    /**
     * Writes {@code setClause} to the row {@code id} if no newer token has written it, and records
     * {@code token} as the row's fence.
     *
     * @param connection the caller's connection; its transaction, commit and close stay the caller's
     * @param id the row's id, bound with {@link java.sql.PreparedStatement#setObject(int, Object)}
     * @param token the lease's {@link io.dupguard.lock.Lease#fencingToken() fencing token}, positive
     * @param setClause column assignments with {@code ?} placeholders, e.g. {@code "balance = ?"}
     * @param params values for the placeholders of {@code setClause}, in order
     * @return true if written; false if a newer token already wrote the row, or no row has this id
     * @throws SQLException as the driver reports it; the write did not happen
     */
    public boolean update(Connection connection, Object id, long token, String setClause, Object... params)
            throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(params, "params");
        if (token < 1) {
            throw new IllegalArgumentException("token must be a positive fencing token, was " + token);
        }
        if (setClause == null || setClause.isBlank()) {
            throw new IllegalArgumentException("setClause must name at least one column assignment");
        }
        String sql = "UPDATE " + table + " SET " + setClause + ", " + fenceColumn + " = ? WHERE " + idColumn
                + " = ? AND (" + fenceColumn + " <= ? OR " + fenceColumn + " IS NULL)";
        return ReadOnlyCheck.update(connection, sql, ps -> {
                    int i = 1;
                    for (Object p : params) {
                        ps.setObject(i++, p);
                    }
                    ps.setLong(i++, token);
                    ps.setObject(i++, id);
                    ps.setLong(i, token);
                })
                > 0;
    }

    @Override
    public String toString() {
        return "Fence[" + table + "." + fenceColumn + " by " + idColumn + "]";
    }
}
