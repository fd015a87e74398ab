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

    JdbcStoreBuilder(DataSource dataSource, String defaultTable, boolean createSchemaByDefault) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.defaultTable = defaultTable;
        this.table = defaultTable;
        this.createSchema = createSchemaByDefault;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** Table name, a plain identifier matching {@code [A-Za-z_][A-Za-z0-9_]{0,62}}. */
    public B tableName(String table) {
        this.table = SqlIdentifier.check(table, "tableName");
        return self();
    }

    /** Skip detection (from the connection's metadata, on first use) and use this dialect. */
    public B dialect(SqlDialect dialect) {
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        return self();
    }

    /** Create the table from the shipped DDL on first use if it does not exist. */
    public B createSchemaIfMissing(boolean create) {
        this.createSchema = create;
        return self();
    }

    public abstract T build();

    JdbcAccess access() {
        return new JdbcAccess(dataSource, dialect, defaultTable, table, createSchema);
    }
}
