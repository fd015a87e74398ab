package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;

/** What the database's metadata says about a table, read once when a store starts. */
final class TableLayout {
    private TableLayout() {}

    /** Whether {@code table} exists in the connection's current catalog and schema. */
    static boolean exists(Connection c, SqlDialect dialect, String table) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        try (ResultSet rs = md.getTables(c.getCatalog(), c.getSchema(), stored(dialect, table), null)) {
            return rs.next();
        }
    }

    /** Whether {@code table} has {@code column}; false if the table does not exist. */
    static boolean hasColumn(Connection c, SqlDialect dialect, String table, String column) throws SQLException {
        return columnType(c, dialect, table, column) != null;
    }

    /**
     * The {@link java.sql.Types} code of {@code column} in {@code table}; null if there is no such
     * column (or table).
     */
    static Integer columnType(Connection c, SqlDialect dialect, String table, String column) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        try (ResultSet rs =
                md.getColumns(c.getCatalog(), c.getSchema(), stored(dialect, table), stored(dialect, column))) {
            while (rs.next()) {
                if (column.equalsIgnoreCase(rs.getString("COLUMN_NAME"))) {
                    return rs.getInt("DATA_TYPE");
                }
            }
            return null;
        }
    }

    /**
     * How the database stores an unquoted identifier (they are plain, {@link SqlIdentifier}): H2
     * folds to upper case, PostgreSQL to lower case, MySQL/MariaDB keep it.
     */
    private static String stored(SqlDialect dialect, String identifier) {
        return switch (dialect) {
            case H2 -> identifier.toUpperCase(Locale.ROOT);
            case POSTGRESQL -> identifier.toLowerCase(Locale.ROOT);
            case MYSQL -> identifier;
        };
    }
}
