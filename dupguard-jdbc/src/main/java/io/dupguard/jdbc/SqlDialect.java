package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The SQL differences dupguard cares about. Detected from the connection's metadata, or named
 * explicitly. Every time expression uses the <b>database's</b> clock, so expiry never depends on
 * which application server asks.
 */
public enum SqlDialect {
    /** H2 2.x (embedded tests, the lab's default). */
    H2("h2", "CURRENT_TIMESTAMP", false, " FOR UPDATE"),
    /** PostgreSQL 12+. */
    POSTGRESQL("postgresql", "clock_timestamp()", true, " FOR SHARE"),
    /** MySQL 8 and MariaDB 10.6+. Keys are stored as VARBINARY so comparison is byte-exact. */
    MYSQL("mysql", "UTC_TIMESTAMP(6)", false, " LOCK IN SHARE MODE");

    private final String id;
    private final String now;
    private final boolean onConflictDoNothing;
    private final String lockingRead;

    SqlDialect(String id, String now, boolean onConflictDoNothing, String lockingRead) {
        this.id = id;
        this.now = now;
        this.onConflictDoNothing = onConflictDoNothing;
        this.lockingRead = lockingRead;
    }

    /**
     * Short lower-case name: {@code h2}, {@code postgresql}, {@code mysql}; also the DDL file name.
     *
     * @return the dialect's id; never null
     */
    public String id() {
        return id;
    }

    /** The database's current time. */
    String now() {
        return now;
    }

    /** The database's current time plus a millisecond count bound as the next parameter. */
    String nowPlusMillisParam() {
        return switch (this) {
            case H2 -> "DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP)";
            case POSTGRESQL -> "(clock_timestamp() + (? * INTERVAL '1 millisecond'))";
            case MYSQL -> "(UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)";
        };
    }

    /**
     * Whether an insert can skip an existing key without an error ({@code ON CONFLICT DO NOTHING}).
     * Needed on PostgreSQL, where any error aborts the surrounding transaction. MySQL's {@code
     * INSERT IGNORE} is not used because it also turns NOT NULL and other errors into warnings
     * (guarantee K5); there and on H2 a plain insert is tried and only a unique violation means "exists".
     */
    boolean onConflictDoNothing() {
        return onConflictDoNothing;
    }

    /**
     * Suffix making a SELECT read the newest committed row instead of the transaction's snapshot,
     * so a re-read after a failed insert sees the row that made it fail, even under REPEATABLE
     * READ.
     */
    String lockingRead() {
        return lockingRead;
    }

    /** Limits a DELETE to {@code ?} rows; {@code where} is the condition without WHERE. */
    String deleteLimited(String table, String where) {
        return switch (this) {
            case H2 -> "DELETE FROM " + table + " WHERE " + where + " FETCH FIRST ? ROWS ONLY";
            case MYSQL -> "DELETE FROM " + table + " WHERE " + where + " LIMIT ?";
            case POSTGRESQL ->
                "DELETE FROM " + table + " WHERE ctid = ANY(ARRAY(SELECT ctid FROM " + table + " WHERE " + where
                        + " LIMIT ?))";
        };
    }

    /**
     * Resource path of the shipped DDL.
     *
     * @return the absolute class-path resource of the DDL, e.g. {@code
     *     /io/dupguard/jdbc/schema/postgresql.sql}
     */
    public String schemaResource() {
        return "/io/dupguard/jdbc/schema/" + id + ".sql";
    }

    /**
     * The dialect of a live connection, from {@link java.sql.DatabaseMetaData#getDatabaseProductName()}.
     *
     * @param connection an open connection; not null
     * @return the dialect; never null
     * @throws IllegalArgumentException for a database dupguard does not support
     * @throws SQLException if the metadata cannot be read
     */
    public static SqlDialect detect(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (p.contains("h2")) {
            return H2;
        } else if (p.contains("postgres")) {
            return POSTGRESQL;
        } else if (p.contains("mysql") || p.contains("mariadb")) {
            return MYSQL;
        }
        throw new IllegalArgumentException("unsupported database '" + product + "'; supported: " + supported());
    }

    /**
     * The dialect with this name ({@code h2}, {@code postgresql}/{@code postgres}, {@code
     * mysql}/{@code mariadb}), case-insensitive.
     *
     * @param name the dialect's name; not null
     * @return the dialect; never null
     * @throws IllegalArgumentException for an unknown name, listing the known ones
     */
    public static SqlDialect named(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        return switch (n) {
            case "h2" -> H2;
            case "postgresql", "postgres", "pg" -> POSTGRESQL;
            case "mysql", "mariadb" -> MYSQL;
            default -> throw new IllegalArgumentException("unknown SQL dialect '" + name + "'; known: " + supported());
        };
    }

    private static String supported() {
        return Arrays.stream(values()).map(SqlDialect::id).collect(Collectors.joining(", "));
    }
}
