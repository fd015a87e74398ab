package io.dupguard.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class PostgresConsoleIT extends AbstractConsoleIT {
    @Override
    String url() {
        return System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    }

    /**
     * A processed-messages table of the configured name in another schema (another service's, say)
     * is not the one the stores write: the lookup stays in the connection's current schema and
     * misses, instead of reading a table its unqualified name does not reach.
     */
    @Test
    void aProcessedTableInAnotherSchemaIsNotLookedIn() throws Exception {
        String schema = "dupguard_console_other";
        try (Connection c = f.ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
            s.execute("DROP TABLE IF EXISTS " + schema + "." + f.prefix + "processed");
            s.execute("CREATE TABLE " + schema + "." + f.prefix + "processed"
                    + " (scope VARCHAR(64), msg_id VARCHAR(255), fingerprint BIGINT, expires_at TIMESTAMP,"
                    + " PRIMARY KEY (scope, msg_id))");
        }
        try {
            assertThat(f.console.key("orders", "msg-elsewhere")).isEmpty();
        } finally {
            try (Connection c = f.ds.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }
}
