package io.dupguard.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the statements of a shipped DDL file that concern one table, once per store, with the
 * default table name replaced. The files hold the tables of several stores (idempotency records,
 * locks); each store creates only its own.
 *
 * <p>Safe when many processes start together on a database without the tables: the creation runs
 * under a database-wide lock (PostgreSQL advisory lock, MySQL/MariaDB {@code GET_LOCK}; H2, which is
 * embedded, a JVM-wide monitor), so exactly one session creates each object and the others find it.
 */
final class SchemaInitializer {
    private final String defaultTable;
    private final String table;
    /** Key of the PostgreSQL advisory lock held while creating tables ("dupguard" in ASCII). */
    private static final long SCHEMA_LOCK_ID = 0x6475706775617264L;

    private static final String SCHEMA_LOCK_NAME = "dupguard.schema";
    private static final int SCHEMA_LOCK_WAIT_SECONDS = 30;
    private static final Object H2_LOCK = new Object();

    private volatile boolean done;

    SchemaInitializer(String defaultTable, String table) {
        this.defaultTable = defaultTable;
        this.table = table;
    }

    void ensure(Connection c, SqlDialect dialect) throws SQLException {
        if (done) {
            return;
        }
        synchronized (this) {
            if (done) {
                return;
            }
            if (dialect == SqlDialect.H2) {
                // One in-memory or file database is shared by the pools of one JVM; H2 has no
                // cross-session lock function, so serialise within the JVM — the existence check
                // too: H2 shows a table to other sessions while its CREATE TABLE still adds the
                // primary key, so a store that saw it then could insert rows the key's index build
                // then refused as duplicates (ConcurrentSchemaCreationIT).
                synchronized (H2_LOCK) {
                    run(c, dialect);
                }
                done = true;
                return;
            }
            // A table that is there needs no lock: a store starting next to existing tables (the
            // usual case) takes no cross-process lock, and neither does one whose connections come
            // from a proxy that may run the lock and its release on different sessions
            // (ShardingSphere-JDBC, docs/scaling.md).
            if (TableLayout.exists(c, dialect, table)) {
                done = true;
                return;
            }
            switch (dialect) {
                case POSTGRESQL -> createUnderAdvisoryLock(c, dialect);
                case MYSQL -> createUnderNamedLock(c, dialect);
                case H2 -> throw new AssertionError("handled above");
            }
            done = true;
        }
    }

    /**
     * PostgreSQL's {@code CREATE … IF NOT EXISTS} is not safe against a concurrent creation of the
     * same name: both sessions pass the existence check and one fails with a unique violation in
     * {@code pg_class} or {@code pg_type}. So the DDL runs in one transaction holding a
     * transaction-scoped advisory lock (released by the commit); a session that waited finds the
     * objects committed and creates nothing. DDL is transactional there, so a failure leaves nothing.
     */
    private void createUnderAdvisoryLock(Connection c, SqlDialect dialect) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        if (autoCommit) {
            c.setAutoCommit(false);
        }
        try {
            try (Statement st = c.createStatement()) {
                st.execute("SELECT pg_advisory_xact_lock(" + SCHEMA_LOCK_ID + ")");
            }
            run(c, dialect);
            c.commit();
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        } finally {
            if (autoCommit) {
                c.setAutoCommit(true);
            }
        }
    }

    /**
     * MySQL/MariaDB commit every DDL statement implicitly, so a transaction cannot hold the
     * creations together; a named lock ({@code GET_LOCK}, held by the session, released explicitly)
     * serialises them across processes instead.
     */
    private void createUnderNamedLock(Connection c, SqlDialect dialect) throws SQLException {
        try (Statement st = c.createStatement()) {
            try (ResultSet rs =
                    st.executeQuery("SELECT GET_LOCK('" + SCHEMA_LOCK_NAME + "', " + SCHEMA_LOCK_WAIT_SECONDS + ")")) {
                if (!rs.next() || rs.getInt(1) != 1) {
                    throw new SQLException(
                            "could not take the schema-creation lock '" + SCHEMA_LOCK_NAME + "' within "
                                    + SCHEMA_LOCK_WAIT_SECONDS + " s",
                            "HY000");
                }
            }
            try {
                run(c, dialect);
            } finally {
                st.execute("DO RELEASE_LOCK('" + SCHEMA_LOCK_NAME + "')");
            }
        }
    }

    private void run(Connection c, SqlDialect dialect) throws SQLException {
        if (TableLayout.exists(c, dialect, table)) {
            // An existing table is left as it is, including one of an earlier layout whose columns
            // the shipped indexes would not find (the stores detect and handle that layout).
            return;
        }
        try (Statement st = c.createStatement()) {
            for (String ddl : statements(dialect)) {
                // Default names are chosen so that none contains another (dupguard_locks,
                // dupguard_idempotency): a statement naming ours belongs to our table.
                if (ddl.contains(defaultTable)) {
                    st.execute(ddl.replace(defaultTable, table));
                }
            }
        }
    }

    /** The statements of a dialect's DDL file, comments removed. */
    static List<String> statements(SqlDialect dialect) {
        String text;
        try (InputStream in = SchemaInitializer.class.getResourceAsStream(dialect.schemaResource())) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + dialect.schemaResource());
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        StringBuilder sql = new StringBuilder();
        for (String line : text.split("\n")) {
            if (!line.strip().startsWith("--")) {
                sql.append(line).append('\n');
            }
        }
        List<String> out = new ArrayList<>();
        for (String stmt : sql.toString().split(";")) {
            if (!stmt.isBlank()) {
                out.add(stmt.strip());
            }
        }
        return out;
    }
}
