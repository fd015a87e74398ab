package io.dupguard.jdbc;

import java.sql.SQLException;

/**
 * Recognises a unique-key violation — and nothing else (guarantee K5). NOT NULL, foreign-key and check
 * violations share SQLState class 23 with it, so the SQLState alone is not enough on MySQL/MariaDB
 * (they report 23000 for all of them); the vendor code decides there.
 */
public final class UniqueViolation {
    private static final String SQLSTATE_UNIQUE = "23505"; // PostgreSQL, H2, SQL standard
    private static final int MYSQL_DUP_ENTRY = 1062;
    private static final int MYSQL_DUP_KEY = 1022;
    private static final int MYSQL_DUP_ENTRY_WITH_KEY_NAME = 1586;

    private UniqueViolation() {}

    /**
     * True if {@code e}, or an exception it wraps or chains, is a unique-key violation.
     *
     * @param e the exception; not null
     * @return true if a unique-key violation is found in the cause chain or the next-exception
     *     chain
     */
    public static boolean test(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && isUnique(sql)) {
                return true;
            }
        }
        for (SQLException next = e.getNextException(); next != null; next = next.getNextException()) {
            if (isUnique(next)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isUnique(SQLException e) {
        if (SQLSTATE_UNIQUE.equals(e.getSQLState())) {
            return true;
        }
        int code = e.getErrorCode();
        return "23000".equals(e.getSQLState())
                && (code == MYSQL_DUP_ENTRY || code == MYSQL_DUP_KEY || code == MYSQL_DUP_ENTRY_WITH_KEY_NAME);
    }
}
