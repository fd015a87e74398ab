package io.dupguard.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the statements of a shipped DDL file that concern one table, once per store, with the
 * default table name replaced. The files hold the tables of several stores (idempotency records,
 * locks); each store creates only its own.
 */
final class SchemaInitializer {
    private final String defaultTable;
    private final String table;
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
            try {
                run(c, dialect);
            } catch (SQLException first) {
                // PostgreSQL's CREATE ... IF NOT EXISTS can still fail when another process creates
                // the same table at the same moment (a unique violation in pg_type, or "type
                // already exists"). The statements are idempotent: a second run finds the objects
                // in place, or fails again for a real reason (permissions), which then surfaces.
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
                try {
                    run(c, dialect);
                } catch (SQLException second) {
                    second.addSuppressed(first);
                    throw second;
                }
            }
            done = true;
        }
    }

    private void run(Connection c, SqlDialect dialect) throws SQLException {
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
