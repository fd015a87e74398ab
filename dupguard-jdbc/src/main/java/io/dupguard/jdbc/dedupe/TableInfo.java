package io.dupguard.jdbc.dedupe;

import io.dupguard.jdbc.SqlDialect;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The target table as the database describes it: validated names (as stored), columns, the id
 * column. Everything spliced into SQL comes from here, after checking it against the catalog.
 */
final class TableInfo {
    static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    record Column(String name, int jdbcType, String typeName, boolean generated, String collation) {
        boolean isText() {
            return switch (jdbcType) {
                case Types.CHAR,
                        Types.VARCHAR,
                        Types.LONGVARCHAR,
                        Types.NCHAR,
                        Types.NVARCHAR,
                        Types.LONGNVARCHAR,
                        Types.CLOB,
                        Types.NCLOB -> true;
                default -> typeName.toLowerCase(Locale.ROOT).contains("text");
            };
        }

        /** A case-insensitive collation on MySQL/MariaDB (…_ci). */
        boolean caseInsensitiveCollation() {
            return collation != null && collation.toLowerCase(Locale.ROOT).endsWith("_ci");
        }
    }

    final SqlDialect dialect;
    final String table;
    final Map<String, Column> columns;
    final Column id;

    private TableInfo(SqlDialect dialect, String table, Map<String, Column> columns, Column id) {
        this.dialect = dialect;
        this.table = table;
        this.columns = columns;
        this.id = id;
    }

    static String checkIdentifier(String name, String field) {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw DedupeException.badInput(field + " must be a plain SQL identifier matching " + IDENTIFIER.pattern()
                    + ", was '" + name + "'");
        }
        return name;
    }

    /**
     * Reads the table from the catalog.
     *
     * @param idColumn the row id column, or null to use the single-column primary key
     */
    static TableInfo read(Connection c, SqlDialect dialect, String table, String idColumn) throws SQLException {
        checkIdentifier(table, "--table");
        DatabaseMetaData meta = c.getMetaData();
        String catalog = c.getCatalog();
        String schema = dialect == SqlDialect.MYSQL ? null : c.getSchema();
        String stored = storedTableName(meta, catalog, schema, table)
                .orElseThrow(() -> DedupeException.badInput("--table: table '" + table + "' not found"
                        + (schema != null
                                ? " in schema " + schema
                                : catalog != null ? " in database " + catalog : "")));
        Map<String, String> collations = dialect == SqlDialect.MYSQL ? mysqlCollations(c, stored) : Map.of();
        Map<String, Column> columns = new LinkedHashMap<>();
        try (ResultSet rs = meta.getColumns(catalog, schema, stored, "%")) {
            while (rs.next()) {
                String name = rs.getString("COLUMN_NAME");
                String generated = safeString(rs, "IS_GENERATEDCOLUMN");
                columns.put(
                        name.toLowerCase(Locale.ROOT),
                        new Column(
                                name,
                                rs.getInt("DATA_TYPE"),
                                String.valueOf(rs.getString("TYPE_NAME")),
                                "YES".equalsIgnoreCase(generated),
                                collations.get(name)));
            }
        }
        List<String> pk = new ArrayList<>();
        try (ResultSet rs = meta.getPrimaryKeys(catalog, schema, stored)) {
            while (rs.next()) {
                pk.add(rs.getString("COLUMN_NAME"));
            }
        }
        TableInfo partial = new TableInfo(dialect, stored, columns, null);
        Column id;
        if (idColumn != null) {
            id = partial.column(idColumn, "--id");
        } else if (pk.size() == 1) {
            id = partial.column(pk.get(0), "primary key");
        } else {
            throw DedupeException.badInput("--id: table '" + table + "' has "
                    + (pk.isEmpty() ? "no primary key" : "a primary key of " + pk.size() + " columns " + pk)
                    + "; name a unique, non-null row id column with --id");
        }
        return new TableInfo(dialect, stored, columns, id);
    }

    /** The column, as stored, or a bad-input error naming the option, the table and its columns. */
    Column column(String name, String field) {
        checkIdentifier(name, field);
        Column col = columns.get(name.toLowerCase(Locale.ROOT));
        if (col == null) {
            throw DedupeException.badInput(
                    field + ": column '" + name + "' not found in table '" + table + "'; its columns are "
                            + columns.values().stream().map(Column::name).toList());
        }
        return col;
    }

    /** Columns copied to the backup and back: all but generated ones. */
    List<Column> storedColumns() {
        return columns.values().stream().filter(col -> !col.generated()).toList();
    }

    /** Whether a table exists (any letter case), for dupguard's own tables. */
    static boolean exists(Connection c, SqlDialect dialect, String table) throws SQLException {
        String schema = dialect == SqlDialect.MYSQL ? null : c.getSchema();
        return storedTableName(c.getMetaData(), c.getCatalog(), schema, table).isPresent();
    }

    /** Lower-case column names of a table. */
    static java.util.Set<String> columnNames(Connection c, SqlDialect dialect, String table) throws SQLException {
        String schema = dialect == SqlDialect.MYSQL ? null : c.getSchema();
        DatabaseMetaData meta = c.getMetaData();
        String stored = storedTableName(meta, c.getCatalog(), schema, table).orElse(table);
        java.util.Set<String> names = new java.util.LinkedHashSet<>();
        try (ResultSet rs = meta.getColumns(c.getCatalog(), schema, stored, "%")) {
            while (rs.next()) {
                names.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
            }
        }
        return names;
    }

    private static Optional<String> storedTableName(DatabaseMetaData meta, String catalog, String schema, String table)
            throws SQLException {
        for (String candidate : List.of(table, table.toLowerCase(Locale.ROOT), table.toUpperCase(Locale.ROOT))) {
            try (ResultSet rs = meta.getTables(catalog, schema, candidate, new String[] {"TABLE", "BASE TABLE"})) {
                while (rs.next()) {
                    String name = rs.getString("TABLE_NAME");
                    if (name.equalsIgnoreCase(table)) {
                        return Optional.of(name);
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static Map<String, String> mysqlCollations(Connection c, String table) throws SQLException {
        Map<String, String> result = new LinkedHashMap<>();
        try (PreparedStatement ps =
                c.prepareStatement("SELECT COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS"
                        + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?")) {
            ps.setString(1, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    result.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        return result;
    }

    private static String safeString(ResultSet rs, String column) {
        try {
            return rs.getString(column);
        } catch (SQLException e) {
            return null; // older drivers do not report generated columns
        }
    }
}
