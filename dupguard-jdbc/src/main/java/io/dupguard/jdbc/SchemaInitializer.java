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

/** Runs a shipped DDL file once per store, with the default table name replaced. */
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
            try (Statement st = c.createStatement()) {
                for (String ddl : statements(dialect)) {
                    st.execute(ddl.replace(defaultTable, table));
                }
            }
            done = true;
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
