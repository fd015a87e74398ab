package io.dupguard.jdbc;

import java.util.Objects;
import javax.sql.DataSource;

/**
 * The settings every dupguard JDBC store shares: data source, table name, dialect and whether to
 * create the table from the shipped DDL. Each store's {@code Builder} extends this. Not
 * thread-safe.
 *
 * @param <B> the concrete builder
 * @param <T> what it builds
 */
public abstract class JdbcStoreBuilder<B extends JdbcStoreBuilder<B, T>, T> {
    private final DataSource dataSource;
    private final String defaultTable;
    private String table;
    private SqlDialect dialect;
    private boolean createSchema;

    JdbcStoreBuilder(DataSource dataSource, String defaultTable) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.defaultTable = defaultTable;
        this.table = defaultTable;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /**
     * Table name, a plain identifier matching {@code [A-Za-z_][A-Za-z0-9_]{0,62}}; the store's {@code
     * DEFAULT_TABLE} if not set.
     *
     * @param table the table name
     * @return this builder
     * @throws IllegalArgumentException if {@code table} is null or not a plain identifier, naming
     *     {@code tableName}
     */
    public B tableName(String table) {
        this.table = SqlIdentifier.check(table, "tableName");
        return self();
    }

    /**
     * Skip detection (from the connection's metadata, on first use) and use this dialect.
     *
     * @param dialect the dialect
     * @return this builder
     * @throws NullPointerException if {@code dialect} is null
     */
    public B dialect(SqlDialect dialect) {
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        return self();
    }

    /**
     * Whether to create the table from the shipped DDL on first use if it does not exist. Off by
     * default on every dupguard JDBC store: a store runs no DDL unless asked, so production schemas stay
     * under the application's migrations (apply {@code io/dupguard/jdbc/schema/<dialect>.sql}). The
     * Spring Boot starter asks by default ({@code dupguard.jdbc.create-schema=true}). Never alters an
     * existing table.
     *
     * @param create true to create a missing table on first use
     * @return this builder
     */
    public B createSchemaIfMissing(boolean create) {
        this.createSchema = create;
        return self();
    }

    /**
     * Builds the store. Opens no connection: on first use the dialect is detected, the server is
     * asked whether it takes writes — a read-only replica or standby is refused with {@link
     * io.dupguard.ReadOnlyStoreException} (guarantee K7) — and the table is created (if asked).
     *
     * @return the store, thread-safe
     */
    public abstract T build();

    JdbcAccess access() {
        return new JdbcAccess(dataSource, dialect, defaultTable, table, createSchema);
    }
}
