package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The transaction {@link JdbcTransactionalIdempotency#executeInTransaction} owns, begun only when
 * something is about to be written: a duplicate is answered by one autocommit read and never opens
 * a transaction at all.
 *
 * <p>How it begins depends on the connection:
 *
 * <ul>
 *   <li>Already in manual-commit mode (a pool configured with autocommit off): it is in a
 *       transaction from the first statement; {@link #begin} does nothing and {@link Connection#commit}
 *       / {@link Connection#rollback} end it.
 *   <li>MySQL/MariaDB in autocommit: {@code START TRANSACTION}, ended by {@code COMMIT} or {@code
 *       ROLLBACK} statements. Switching the session with {@code setAutoCommit(false)} costs a round
 *       trip there, and the pool's reset to autocommit on return another one: two of the five round
 *       trips of a fresh call. The session's autocommit flag is never changed, so the work sees
 *       {@code getAutoCommit() == true} while the transaction is open.
 *   <li>Any other database in autocommit: {@code setAutoCommit(false)}, which PostgreSQL's and H2's
 *       drivers apply without a round trip (PostgreSQL sends {@code BEGIN} with the next
 *       statement); {@code commit()} / {@code rollback()}; the pool restores autocommit on return.
 * </ul>
 *
 * <p>Single-threaded, like the connection.
 */
final class OwnTransaction {
    private enum Mode {
        ALREADY_MANUAL,
        EXPLICIT_STATEMENTS,
        SWITCH_AUTOCOMMIT
    }

    private final Connection connection;
    private final Mode mode;
    private boolean open;

    private OwnTransaction(Connection connection, Mode mode) {
        this.connection = connection;
        this.mode = mode;
        this.open = mode == Mode.ALREADY_MANUAL;
    }

    static OwnTransaction on(Connection connection, SqlDialect dialect) throws SQLException {
        Mode mode;
        if (!connection.getAutoCommit()) {
            mode = Mode.ALREADY_MANUAL;
        } else if (dialect == SqlDialect.MYSQL) {
            mode = Mode.EXPLICIT_STATEMENTS;
        } else {
            mode = Mode.SWITCH_AUTOCOMMIT;
        }
        return new OwnTransaction(connection, mode);
    }

    /** Begins the transaction unless one is open. */
    void begin() throws SQLException {
        if (open) {
            return;
        }
        if (mode == Mode.EXPLICIT_STATEMENTS) {
            execute("START TRANSACTION");
        } else {
            connection.setAutoCommit(false);
        }
        open = true;
    }

    /** Commits what was begun; nothing if nothing was. */
    void commit() throws SQLException {
        if (!open) {
            return;
        }
        if (mode == Mode.EXPLICIT_STATEMENTS) {
            execute("COMMIT");
            open = false;
        } else {
            connection.commit();
        }
    }

    /** Rolls back what was begun; nothing if nothing was. A later {@link #begin} starts afresh. */
    void rollback() throws SQLException {
        if (!open) {
            return;
        }
        if (mode == Mode.EXPLICIT_STATEMENTS) {
            open = false; // if ROLLBACK fails the connection is broken and the pool discards it
            execute("ROLLBACK");
        } else {
            connection.rollback();
        }
    }

    private void execute(String sql) throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.execute(sql);
        }
    }
}
