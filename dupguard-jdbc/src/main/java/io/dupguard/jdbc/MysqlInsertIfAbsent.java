package io.dupguard.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Insert-if-absent on MySQL/MariaDB without an error for an existing key. A duplicate-key error
 * would do (only a unique violation means "exists", K5), but MariaDB's driver logs every error
 * packet as a WARN — one log line per duplicate request — and {@code INSERT IGNORE} would also
 * swallow NOT NULL and other errors. So the statement leaves an existing row as it is and tells the
 * two cases apart through its insert id: {@code LAST_INSERT_ID(2)} while building the new row,
 * overwritten by {@code LAST_INSERT_ID(1)} in the no-op update of an existing one.
 */
final class MysqlInsertIfAbsent {
    private MysqlInsertIfAbsent() {}

    /**
     * Rewrites {@code INSERT INTO t (c1, …) VALUES (?, …)} — first value a bound parameter — into
     * the reporting form.
     */
    static String rewrite(String insertSql, String firstColumn) {
        int values = insertSql.indexOf("VALUES (?");
        if (values < 0) {
            throw new IllegalArgumentException("first value must be a parameter: " + insertSql);
        }
        return insertSql.substring(0, values) + "VALUES (IF(LAST_INSERT_ID(2) = 2, ?, NULL)"
                + insertSql.substring(values + "VALUES (?".length())
                + " ON DUPLICATE KEY UPDATE " + firstColumn + " = IF(LAST_INSERT_ID(1) = 1, " + firstColumn + ", "
                + firstColumn + ")";
    }

    /**
     * After {@code executeUpdate} of a statement prepared with {@code RETURN_GENERATED_KEYS}:
     * true if the row was inserted, false if it existed, null if the driver reported no insert id.
     */
    static Boolean inserted(PreparedStatement ps) throws SQLException {
        try (ResultSet keys = ps.getGeneratedKeys()) {
            return keys.next() ? keys.getLong(1) == 2 : null;
        }
    }
}
