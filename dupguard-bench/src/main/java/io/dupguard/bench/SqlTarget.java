package io.dupguard.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcTransactionalIdempotency;
import io.dupguard.jdbc.SqlDialect;
import io.dupguard.jdbc.UniqueViolation;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;

/**
 * One SQL database (H2, PostgreSQL or MariaDB) with one HikariCP pool shared by every row: dupguard
 * in autocommit, dupguard transactional, the hand-written ceiling and (optionally) Camel. Each row
 * has its own table; all are dropped when the target closes.
 */
final class SqlTarget implements AutoCloseable {
    static final String DUPGUARD_TABLE = "bench_dupguard_idem";
    static final String SAME_TABLE = "bench_same_idem";
    static final String LEAN_TABLE = "bench_lean_idem";
    static final String CAMEL_TABLE = "bench_camel_processed";

    static final long LEASE_MILLIS = IdempotencyConfig.DEFAULT_IN_FLIGHT_LEASE.toMillis();
    static final long RETENTION_MILLIS = IdempotencyConfig.DEFAULT_RETENTION.toMillis();

    private final String label;
    private final HikariDataSource pool;
    private final SqlDialect dialect;
    private final List<BenchImpl> impls;
    private final JdbcCounting counting = new JdbcCounting();
    private final List<BenchImpl> auditImpls;
    private final List<JdbcMessageIdRepository> camels = new ArrayList<>();

    SqlTarget(String label, String url, int poolSize, boolean withCamel, boolean diagnostics) throws Exception {
        this.label = label;
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url);
        hc.setMaximumPoolSize(poolSize);
        hc.setMinimumIdle(poolSize);
        hc.setPoolName("bench-" + label);
        this.pool = new HikariDataSource(hc);
        try (Connection c = pool.getConnection()) {
            this.dialect = SqlDialect.detect(c);
        }
        dropTables();
        createSameTable(SAME_TABLE);
        createSameTable(HandTx.SAME_TABLE);
        Lean.createTable(pool, dialect, LEAN_TABLE);
        Lean.createTable(pool, dialect, HandTx.LEAN_TABLE);
        if (withCamel) {
            // Camel creates a missing table inside the transaction whose probe failed, which PostgreSQL
            // refuses (25P02), so the table is created here with Camel's own DDL.
            try (Connection c = pool.getConnection();
                    Statement st = c.createStatement()) {
                st.execute("CREATE TABLE " + CAMEL_TABLE + " (processorName VARCHAR(255), messageId VARCHAR(100),"
                        + " createdAt TIMESTAMP, PRIMARY KEY (processorName, messageId))");
            }
        }
        this.impls = build(pool, withCamel, diagnostics);
        // The same rows once more on a counting wrapper of the pool, for the (untimed) audit only.
        this.auditImpls = build(counting.wrap(pool), withCamel, false);
    }

    private List<BenchImpl> build(DataSource ds, boolean withCamel, boolean diagnostics) throws Exception {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds)
                .tableName(DUPGUARD_TABLE)
                .createSchemaIfMissing(true)
                .build();
        store.dialect(); // detects the dialect and creates the table from the shipped DDL
        List<BenchImpl> out = new ArrayList<>();
        out.add(new Lean(ds, dialect, this::truncate));
        out.add(new Hand(ds, HandMode.AUTOCOMMIT));
        out.add(dupguard(
                "dupguard",
                BenchImpl.Role.DUPGUARD,
                Idempotency.of(store),
                "Idempotency.execute over JdbcIdempotencyStore (default config, autocommit): claim = pool checkout +"
                        + (dialect == SqlDialect.POSTGRESQL ? " INSERT … ON CONFLICT DO NOTHING" : " INSERT")
                        + "; complete = pool checkout + UPDATE; duplicate = the insert + SELECT"));
        out.add(new HandTx(ds, dialect, HandTx.Design.LEAN, this::truncate));
        out.add(new HandTx(ds, dialect, HandTx.Design.SAME_TABLE, this::truncate));
        out.add(new DupguardTx(JdbcTransactionalIdempotency.of(store), false));
        out.add(new DupguardTx(
                JdbcTransactionalIdempotency.of(
                        store, IdempotencyConfig.ofDefaults(), JdbcTransactionalIdempotency.ClaimMode.CLAIM_FIRST),
                true));
        if (withCamel) {
            JdbcMessageIdRepository camel = new JdbcMessageIdRepository(ds, "bench");
            camel.setTableName(CAMEL_TABLE);
            camel.start();
            camels.add(camel);
            out.add(new Camel(camel));
        }
        if (diagnostics) {
            out.add(dupguard(
                    "dupguard, renewLease(false)",
                    BenchImpl.Role.DIAGNOSTIC,
                    Idempotency.of(
                            store, IdempotencyConfig.custom().renewLease(false).build()),
                    "as dupguard, without the Watchdog registration"));
            out.add(new Hand(ds, HandMode.TX_SAME_SQL));
            out.add(new Hand(ds, HandMode.TX_LEAN));
        }
        return out;
    }

    private BenchImpl dupguard(String name, BenchImpl.Role role, Idempotency idempotency, String description) {
        return new DupguardExecute(
                name, role, description, idempotency, Bench::response, true, () -> truncate(DUPGUARD_TABLE));
    }

    /** The rows on the counting pool wrapper, and what was counted. */
    Audit.Subject auditSubject() {
        return new Audit.Subject(auditImpls, counting::reset, calls -> {
            JdbcCounting.Counts c = counting.perCall(calls);
            return Audit.format(c.checkouts(), "checkout") + " · " + Audit.format(c.statements(), "statement") + " · "
                    + Audit.format(c.commits(), "commit")
                    + (c.rollbacks() > 0 ? " · " + Audit.format(c.rollbacks(), "rollback") : "")
                    + " · " + Audit.format(c.autoCommitSwitches(), "setAutoCommit");
        });
    }

    List<BenchImpl> impls() {
        return impls;
    }

    /**
     * Server tasks that serve clients of other databases on the same server (other work's tests on
     * this shared machine): PostgreSQL backend pids, MariaDB connection thread ids. Their CPU is
     * then counted as foreign, not as this store's server CPU. Empty for H2 or if the query fails.
     */
    Set<Long> otherClients() {
        return otherClients(pool, dialect);
    }

    /** {@link #otherClients()} of any pool on a database of {@code dialect}. */
    static Set<Long> otherClients(DataSource pool, SqlDialect dialect) {
        String sql =
                switch (dialect) {
                    case POSTGRESQL ->
                        "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend'"
                                + " AND datname IS DISTINCT FROM current_database()";
                    case MYSQL ->
                        "SELECT TID FROM information_schema.PROCESSLIST WHERE COMMAND <> 'Daemon'"
                                + " AND (DB IS NULL OR DB <> DATABASE())";
                    case H2 -> null;
                };
        if (sql == null) {
            return Set.of();
        }
        Set<Long> out = new HashSet<>();
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        } catch (SQLException e) {
            return Set.of();
        }
        return out;
    }

    /** Product and version as the server reports them, plus the durability settings that bound commits. */
    String serverVersion() throws SQLException {
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement()) {
            String version = c.getMetaData().getDatabaseProductName() + " "
                    + c.getMetaData().getDatabaseProductVersion();
            Map<String, String> settings = new LinkedHashMap<>();
            switch (dialect) {
                case POSTGRESQL -> {
                    for (String s : List.of("fsync", "synchronous_commit", "shared_buffers", "max_connections")) {
                        settings.put(s, single(st, "SHOW " + s));
                    }
                    version = single(st, "SELECT version()");
                }
                case MYSQL -> {
                    settings.put(
                            "innodb_flush_log_at_trx_commit", single(st, "SELECT @@innodb_flush_log_at_trx_commit"));
                    settings.put("isolation", single(st, "SELECT @@tx_isolation"));
                    settings.put("innodb_buffer_pool_size", single(st, "SELECT @@innodb_buffer_pool_size"));
                    settings.put("log_bin", single(st, "SELECT @@log_bin"));
                }
                case H2 -> settings.put("mode", "embedded, in-memory (same JVM)");
            }
            StringBuilder out = new StringBuilder(version);
            if (!settings.isEmpty()) {
                out.append(" (");
                settings.forEach((k, v) -> out.append(k).append('=').append(v).append(", "));
                out.setLength(out.length() - 2);
                out.append(')');
            }
            return out.toString();
        }
    }

    private static String single(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : "?";
        }
    }

    void truncate(String table) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement()) {
            st.execute("TRUNCATE TABLE " + table);
            if (dialect == SqlDialect.POSTGRESQL) {
                // Every run starts right after a checkpoint: the full-page images that follow one
                // are paid by every row alike, not by whichever row a timed checkpoint falls into.
                st.execute("CHECKPOINT");
            }
        }
    }

    private void dropTables() throws SQLException {
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement()) {
            for (String t : List.of(
                    DUPGUARD_TABLE, SAME_TABLE, LEAN_TABLE, HandTx.LEAN_TABLE, HandTx.SAME_TABLE, CAMEL_TABLE)) {
                st.execute("DROP TABLE IF EXISTS " + t);
            }
        }
    }

    /**
     * The same-table ceiling's table has exactly the shape of dupguard's: the store creates it from
     * its shipped DDL under another name (the store itself is not used).
     */
    private void createSameTable(String table) {
        JdbcIdempotencyStore.builder(pool)
                .tableName(table)
                .createSchemaIfMissing(true)
                .build()
                .dialect();
    }

    @Override
    public void close() {
        try {
            for (JdbcMessageIdRepository camel : camels) {
                camel.stop();
            }
            dropTables();
        } catch (Exception e) {
            System.err.println(label + ": cleanup failed: " + e);
        } finally {
            pool.close();
        }
    }

    /** {@link JdbcTransactionalIdempotency#executeInTransaction}: claim, work, complete, one commit. */
    private final class DupguardTx implements BenchImpl {
        private final JdbcTransactionalIdempotency tx;
        private final boolean claimFirst;

        DupguardTx(JdbcTransactionalIdempotency tx, boolean claimFirst) {
            this.tx = tx;
            this.claimFirst = claimFirst;
        }

        @Override
        public String name() {
            return claimFirst ? "dupguard transactional, claim-first" : "dupguard transactional";
        }

        @Override
        public Role role() {
            return claimFirst ? Role.DIAGNOSTIC : Role.DUPGUARD_TX;
        }

        @Override
        public boolean answersInFlight() {
            return true;
        }

        @Override
        public String description() {
            String begin =
                    switch (dialect) {
                        case MYSQL -> "START TRANSACTION";
                        case POSTGRESQL -> "setAutoCommit(false) (BEGIN goes with the next statement)";
                        case H2 -> "setAutoCommit(false)";
                    };
            if (claimFirst) {
                return "executeInTransaction with ClaimMode.CLAIM_FIRST: SELECT of the key in autocommit; if absent, "
                        + begin + ", INSERT of the claim row, the work, UPDATE to finished (no indexed column), COMMIT;"
                        + " duplicate = the SELECT alone; a racing duplicate waits on the row lock";
            }
            return "JdbcTransactionalIdempotency.executeInTransaction (ClaimMode.OPTIMISTIC, the default): SELECT of the"
                    + " key in autocommit; if absent, "
                    + begin + ", the work, INSERT of the finished row"
                    + (dialect == SqlDialect.POSTGRESQL ? " … ON CONFLICT DO NOTHING" : "")
                    + ", COMMIT; duplicate = the SELECT alone (no transaction)";
        }

        @Override
        public boolean call(String key, long seq) {
            Outcome<String> out = tx.executeInTransaction(
                    IdempotencyKey.of(Bench.SCOPE, key), Bench.FINGERPRINT, String.class, c -> Bench.response(seq));
            Bench.consume(out.value());
            return !out.isReplay();
        }

        @Override
        public void reset() throws SQLException {
            truncate(DUPGUARD_TABLE);
        }
    }

    /** How a hand-written row talks to the database. */
    enum HandMode {
        /** Same-table ceiling: autocommit, one checkout, the two statements of dupguard's autocommit path. */
        AUTOCOMMIT,
        /** Diagnostic: dupguard's transactional statements (locking re-read, lease then retention) by hand. */
        TX_SAME_SQL,
        /**
         * Diagnostic: a leaner transaction — the claim row gets its retention at once (an uncommitted row
         * is invisible, so a lease means nothing), the completion touches no indexed column (a HOT update
         * on PostgreSQL), and a duplicate is re-read without a lock (read committed).
         */
        TX_LEAN
    }

    /**
     * Plain JDBC on one pooled connection against a table of dupguard's shape: claim with an insert
     * that skips an existing key, then the completing update; a duplicate reads the stored result
     * instead.
     */
    private final class Hand implements BenchImpl {
        private final DataSource ds;
        private final HandMode mode;
        private final String insert;
        private final String update;
        private final String select;

        Hand(DataSource ds, HandMode mode) {
            this.ds = ds;
            this.mode = mode;
            String t = SAME_TABLE;
            String now = SqlTime.now(dialect);
            String nowPlus = SqlTime.nowPlusMillis(dialect);
            String columns = " (scope, idem_key, status, fingerprint, owner, expires_at, purge_after)"
                    + " VALUES (?, ?, 'P', ?, ?, " + nowPlus + ", " + nowPlus + ")";
            boolean ignore = mode == HandMode.AUTOCOMMIT && dialect == SqlDialect.MYSQL;
            insert = switch (dialect) {
                case POSTGRESQL -> "INSERT INTO " + t + columns + " ON CONFLICT (scope, idem_key) DO NOTHING";
                case MYSQL -> (ignore ? "INSERT IGNORE INTO " : "INSERT INTO ") + t + columns;
                case H2 -> "INSERT INTO " + t + columns;
            };
            update = "UPDATE " + t + " SET status = 'C', payload = ?, owner = NULL"
                    + (mode == HandMode.TX_LEAN ? "" : ", expires_at = " + nowPlus)
                    + " WHERE scope = ? AND idem_key = ? AND status = 'P' AND owner = ?";
            String lock = mode != HandMode.TX_SAME_SQL
                    ? ""
                    : switch (dialect) {
                        case POSTGRESQL -> " FOR SHARE";
                        case MYSQL -> " LOCK IN SHARE MODE";
                        case H2 -> " FOR UPDATE";
                    };
            select = "SELECT status, fingerprint, payload FROM " + t
                    + " WHERE scope = ? AND idem_key = ? AND expires_at > " + now + lock;
        }

        @Override
        public String name() {
            return switch (mode) {
                case AUTOCOMMIT -> "hand-written same-table";
                case TX_SAME_SQL -> "hand-written tx, dupguard's SQL";
                case TX_LEAN -> "hand-written tx, lean SQL";
            };
        }

        @Override
        public Role role() {
            return mode == HandMode.AUTOCOMMIT ? Role.CEILING_SAME_TABLE : Role.DIAGNOSTIC;
        }

        @Override
        public boolean answersInFlight() {
            return mode == HandMode.AUTOCOMMIT;
        }

        @Override
        public String description() {
            String claim =
                    switch (dialect) {
                        case POSTGRESQL -> "INSERT … ON CONFLICT DO NOTHING";
                        case MYSQL ->
                            mode == HandMode.AUTOCOMMIT ? "INSERT IGNORE" : "INSERT (duplicate = caught error)";
                        case H2 -> "INSERT (duplicate = caught unique violation)";
                    };
            return switch (mode) {
                case AUTOCOMMIT ->
                    "dupguard's table (shipped DDL), plain JDBC, one pool checkout, autocommit: " + claim
                            + " + UPDATE status/payload/expiry (not the indexed purge_after); duplicate = the insert"
                            + " + SELECT of the stored result, in flight = rejected";
                case TX_SAME_SQL ->
                    "plain JDBC, one transaction: " + claim
                            + " + UPDATE status/payload/expiry + COMMIT; duplicate = the insert + locking SELECT + COMMIT"
                            + " (what dupguard's transactional mode sends, without the library)";
                case TX_LEAN ->
                    "plain JDBC, one transaction: " + claim
                            + " with the retention as expiry + UPDATE status/payload only (no indexed column) + COMMIT;"
                            + " duplicate = the insert + plain SELECT + COMMIT";
            };
        }

        @Override
        public boolean call(String key, long seq) throws SQLException {
            try (Connection c = ds.getConnection()) {
                if (mode == HandMode.AUTOCOMMIT) {
                    return run(c, key, seq);
                }
                c.setAutoCommit(false);
                try {
                    boolean ran = run(c, key, seq);
                    c.commit();
                    return ran;
                } catch (SQLException | RuntimeException e) {
                    c.rollback();
                    throw e;
                } finally {
                    c.setAutoCommit(true);
                }
            }
        }

        private boolean run(Connection c, String key, long seq) throws SQLException {
            boolean claimed;
            try (PreparedStatement ps = c.prepareStatement(insert)) {
                ps.setString(1, Bench.SCOPE);
                ps.setString(2, key);
                Bench.bindStoreFingerprint(ps, 3, dialect); // bytes on MySQL/MariaDB, hex elsewhere
                ps.setString(4, key); // owner token: unique per claim, as dupguard's
                long expiry = mode == HandMode.TX_LEAN ? RETENTION_MILLIS : LEASE_MILLIS;
                ps.setLong(5, expiry);
                ps.setLong(6, expiry + RETENTION_MILLIS);
                claimed = ps.executeUpdate() == 1;
            } catch (SQLException e) {
                if (dialect != SqlDialect.POSTGRESQL && UniqueViolation.test(e)) {
                    claimed = false;
                } else {
                    throw e;
                }
            }
            if (claimed) {
                String value = Bench.response(seq);
                try (PreparedStatement ps = c.prepareStatement(update)) {
                    int i = 1;
                    ps.setBytes(i++, value.getBytes(StandardCharsets.UTF_8));
                    if (mode != HandMode.TX_LEAN) {
                        ps.setLong(i++, RETENTION_MILLIS);
                    }
                    ps.setString(i++, Bench.SCOPE);
                    ps.setString(i++, key);
                    ps.setString(i, key);
                    if (ps.executeUpdate() != 1) {
                        throw new IllegalStateException("lost claim on " + key);
                    }
                }
                Bench.consume(value);
                return true;
            }
            try (PreparedStatement ps = c.prepareStatement(select)) {
                ps.setString(1, Bench.SCOPE);
                ps.setString(2, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new IllegalStateException("no live record for " + key);
                    }
                    if ("P".equals(rs.getString(1).trim())) {
                        return false; // in flight: rejected
                    }
                    boolean same = Bench.storeFingerprintMatches(rs, 2, dialect);
                    if (!same) {
                        throw new IllegalStateException("fingerprint mismatch on " + key);
                    }
                    Bench.consume(new String(rs.getBytes(3), StandardCharsets.UTF_8));
                    return false;
                }
            }
        }

        @Override
        public void reset() throws SQLException {
            truncate(SAME_TABLE);
        }
    }

    /**
     * Apache Camel's {@link JdbcMessageIdRepository}: {@code add} (a transaction with SELECT COUNT(*)
     * and, if absent, INSERT; one commit) then the work, then {@code confirm} (a no-op). It stores no
     * result, so a duplicate returns nothing to replay.
     */
    private final class Camel implements BenchImpl {
        private final JdbcMessageIdRepository camel;

        Camel(JdbcMessageIdRepository camel) {
            this.camel = camel;
        }

        @Override
        public String name() {
            return "Camel JdbcMessageIdRepository";
        }

        @Override
        public Role role() {
            return Role.CAMEL;
        }

        @Override
        public String description() {
            return "Camel 4.10 add(key) = transaction { SELECT COUNT(*); INSERT if absent } + COMMIT, then"
                    + " confirm(key) (no statement); stores no result; duplicate = SELECT COUNT(*) + COMMIT";
        }

        @Override
        public boolean call(String key, long seq) {
            if (camel.add(key)) {
                String value = Bench.response(seq);
                camel.confirm(key);
                Bench.consume(value);
                return true;
            }
            return false;
        }

        @Override
        public void reset() throws SQLException {
            truncate(CAMEL_TABLE);
        }
    }
}
