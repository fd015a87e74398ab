package io.dupguard.bench.consumer;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.SqlDialect;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One database of the benchmark: the consumers' pool (autocommit off, as a listener's transactions
 * run), an autocommit pool for set-up and checks, and the effect table every row writes to.
 */
final class Database implements AutoCloseable {
    static final String EFFECT_TABLE = "bench_consumer_effect";
    private static final String INSERT_EFFECT = "INSERT INTO " + EFFECT_TABLE + " (seq, msg_id, body) VALUES (?, ?, ?)";

    final String label;
    final HikariDataSource consumers;
    final HikariDataSource admin;
    final SqlDialect dialect;
    private final boolean checkpoint;

    Database(String label, String url, int poolSize, boolean checkpoint) throws SQLException {
        this.label = label;
        this.checkpoint = checkpoint;
        this.consumers = pool(url, poolSize, "bench-consumer-" + label, false);
        this.admin = pool(url, 2, "bench-admin-" + label, true);
        try (Connection c = admin.getConnection()) {
            this.dialect = SqlDialect.detect(c);
        }
        execute("DROP TABLE IF EXISTS " + EFFECT_TABLE);
        execute("CREATE TABLE " + EFFECT_TABLE
                + " (seq BIGINT PRIMARY KEY, msg_id VARCHAR(64) NOT NULL, body VARCHAR(200) NOT NULL)");
    }

    private static HikariDataSource pool(String url, int size, String name, boolean autoCommit) {
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url);
        hc.setMaximumPoolSize(size);
        hc.setMinimumIdle(size);
        hc.setAutoCommit(autoCommit);
        hc.setPoolName(name);
        return new HikariDataSource(hc);
    }

    boolean postgres() {
        return dialect == SqlDialect.POSTGRESQL;
    }

    void execute(String sql) throws SQLException {
        try (Connection c = admin.getConnection();
                Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /**
     * Empties tables; on PostgreSQL a checkpoint follows (unless turned off), so that every run
     * starts right after one and no row pays for a timed checkpoint's full-page writes alone.
     */
    void truncate(String... tables) throws SQLException {
        try (Connection c = admin.getConnection();
                Statement st = c.createStatement()) {
            for (String t : tables) {
                st.execute("TRUNCATE TABLE " + t);
            }
            if (checkpoint && postgres()) {
                st.execute("CHECKPOINT");
            }
        }
    }

    /**
     * Creates dupguard's idempotency table under {@code table} from the shipped DDL, here rather than
     * by the store ({@code createSchemaIfMissing}): the store takes a server-wide schema lock first,
     * which another process on a shared server may hold for long.
     */
    void createDupguardTable(String table) throws SQLException, IOException {
        String text;
        try (InputStream in = SqlDialect.class.getResourceAsStream(dialect.schemaResource())) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String sql = text.lines().filter(l -> !l.strip().startsWith("--")).collect(Collectors.joining("\n"));
        execute("DROP TABLE IF EXISTS " + table);
        for (String ddl : sql.split(";")) {
            if (ddl.contains("dupguard_idempotency")) {
                execute(ddl.strip().replace("dupguard_idempotency", table));
            }
        }
    }

    /** One record's effect: one INSERT on the caller's connection. */
    static void writeEffect(Connection c, ConsumerRecord<String, String> record) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(INSERT_EFFECT)) {
            bind(ps, record);
            ps.executeUpdate();
        }
    }

    /** The records' effects: one JDBC batch of the INSERT (sent in one go by both drivers). */
    static void writeEffects(Connection c, List<ConsumerRecord<String, String>> records) throws SQLException {
        if (records.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_EFFECT)) {
            for (ConsumerRecord<String, String> r : records) {
                bind(ps, r);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private static void bind(PreparedStatement ps, ConsumerRecord<String, String> record) throws SQLException {
        ps.setLong(1, Feed.seq(record));
        ps.setString(2, Feed.id(record));
        ps.setString(3, record.value());
    }

    /** Effect rows and how many different message ids they hold. */
    record Effects(long rows, long ids) {}

    Effects effects() throws SQLException {
        try (Connection c = admin.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT COUNT(*), COUNT(DISTINCT msg_id) FROM " + EFFECT_TABLE)) {
            rs.next();
            return new Effects(rs.getLong(1), rs.getLong(2));
        }
    }

    @Override
    public void close() {
        consumers.close();
        admin.close();
    }
}
