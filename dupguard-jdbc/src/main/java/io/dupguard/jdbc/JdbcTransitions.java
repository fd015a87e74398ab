package io.dupguard.jdbc;

import io.dupguard.state.StateMachine;
import io.dupguard.state.TransitionResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Guarded state transitions on the application's own table (guarantee O3).
 *
 * <ol>
 *   <li>Refuse a transition the {@link StateMachine} does not declare, before touching the
 *       database ({@link io.dupguard.state.IllegalTransitionException}).
 *   <li>{@code UPDATE <table> SET <status> = :to [, extra columns] WHERE <id> = ? AND <status> =
 *       :from}. One row ⇒ {@link TransitionResult.Applied}: this caller made the transition.
 *   <li>Zero rows ⇒ read the current status: already {@code to} ⇒ {@link
 *       TransitionResult.AlreadyApplied} (a duplicate); anything else ⇒ {@link
 *       TransitionResult.Rejected} with it (null if the row does not exist).
 * </ol>
 *
 * <p>Of any number of concurrent callers applying the same transition, exactly one gets {@code
 * Applied}: the database serialises the guarded updates on the row. Runs on the caller's connection
 * and transaction; statuses are stored as the enum's {@code name()}. A connection to a read-only
 * server (a replica or standby) is refused with {@link io.dupguard.ReadOnlyStoreException} (guarantee
 * K7). Immutable and thread-safe.
 *
 * @param <S> the enum of states
 */
public final class JdbcTransitions<S extends Enum<S>> {
    private final StateMachine<S> machine;
    private final String update;
    private final String select;

    private JdbcTransitions(StateMachine<S> machine, String table, String idColumn, String statusColumn) {
        this.machine = Objects.requireNonNull(machine, "machine");
        String t = SqlIdentifier.check(table, "table");
        String id = SqlIdentifier.check(idColumn, "idColumn");
        String status = SqlIdentifier.check(statusColumn, "statusColumn");
        this.update = "UPDATE " + t + " SET " + status + " = ?%s WHERE " + id + " = ? AND " + status + " = ?";
        this.select = "SELECT " + status + " FROM " + t + " WHERE " + id + " = ?";
    }

    /**
     * Transitions of {@code machine} on {@code table}, identified by {@code idColumn}.
     *
     * @param <S> the enum of states
     * @param machine the declared transitions; not null
     * @param table the entity table; a plain SQL identifier
     * @param idColumn the row id column; a plain SQL identifier
     * @param statusColumn the column holding the state's name; a plain SQL identifier
     * @return an immutable, thread-safe helper
     */
    public static <S extends Enum<S>> JdbcTransitions<S> of(
            StateMachine<S> machine, String table, String idColumn, String statusColumn) {
        return new JdbcTransitions<>(machine, table, idColumn, statusColumn);
    }

    /**
     * Applies {@code from → to} to the row {@code id}.
     *
     * @param c the connection, in the caller's transaction or autocommit; not null, not committed
     *     here
     * @param id the row's id
     * @param from the state the caller expects the row in; not null
     * @param to the target state; not null
     * @return what happened: applied, already applied or rejected; never null
     * @throws SQLException if a statement fails
     */
    public TransitionResult<S> apply(Connection c, Object id, S from, S to) throws SQLException {
        return apply(c, id, from, to, "");
    }

    /**
     * Applies {@code from → to} and, in the same statement, {@code alsoSet} — column assignments
     * with {@code ?} placeholders written by the application (never user input), e.g. {@code
     * "paid_at = CURRENT_TIMESTAMP, amount = ?"} — bound to {@code params}.
     *
     * @param c the connection, in the caller's transaction or autocommit; not null, not committed
     *     here
     * @param id the row's id
     * @param from the state the caller expects the row in; not null
     * @param to the target state; not null
     * @param alsoSet further column assignments with {@code ?} placeholders, written by the
     *     application
     * @param params the values bound to {@code alsoSet}'s placeholders, in order
     * @return what happened: applied, already applied or rejected; never null
     * @throws SQLException if a statement fails
     */
    public TransitionResult<S> apply(Connection c, Object id, S from, S to, String alsoSet, Object... params)
            throws SQLException {
        machine.check(from, to);
        Objects.requireNonNull(id, "id");
        String extra = alsoSet == null || alsoSet.isBlank() ? "" : ", " + alsoSet;
        int rows = ReadOnlyCheck.update(c, String.format(update, extra), ps -> {
            int i = 1;
            ps.setString(i++, to.name());
            for (Object p : params) {
                ps.setObject(i++, p);
            }
            ps.setObject(i++, id);
            ps.setString(i, from.name());
        });
        if (rows == 1) {
            return TransitionResult.applied(from, to);
        }
        S current = current(c, id);
        return current == to ? new TransitionResult.AlreadyApplied<>(to) : new TransitionResult.Rejected<>(current);
    }

    /**
     * The row's current status, or null if it does not exist.
     *
     * @param c the connection; not null
     * @param id the row's id
     * @return the current state, or null if there is no such row
     * @throws SQLException if the query fails
     */
    public S current(Connection c, Object id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(select)) {
            ps.setObject(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? machine.parse(rs.getString(1)) : null;
            }
        }
    }
}
