package io.dupguard.lab.scale;

import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.SqlDialect;
import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.workload.LabIdempotency;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * The JDBC store on PostgreSQL or MariaDB. The fill copies the template row with one {@code INSERT
 * … SELECT} per million keys ({@code generate_series} / MariaDB's sequence engine), expired two days
 * ago; the purge is the store's own {@link JdbcIdempotencyStore#purgeExpired(int)} in batches of
 * {@value #PURGE_BATCH}.
 */
final class JdbcScaleTarget implements ScaleTarget {
    static final String TABLE = "dupguard_lab_scale_idem";
    static final int PURGE_BATCH = 5000;
    private static final long CHUNK = 1_000_000;
    private static final long SETTLE_LIMIT_SECONDS = 600;

    private final LabEnvironment env;
    private final JdbcIdempotencyStore store;

    private final boolean surrogateKey;

    JdbcScaleTarget(LabEnvironment env, boolean surrogateKey) throws SQLException {
        if (env.dialect() != SqlDialect.POSTGRESQL && env.dialect() != SqlDialect.MYSQL) {
            throw new IllegalArgumentException(
                    "the scale study measures PostgreSQL or MariaDB, not " + env.databaseLabel());
        }
        if (surrogateKey && env.dialect() != SqlDialect.MYSQL) {
            throw new IllegalArgumentException("--surrogate-key is an experiment on MariaDB/MySQL's clustered index");
        }
        this.env = env;
        this.surrogateKey = surrogateKey;
        this.store = LabIdempotency.freshJdbcStore(env, TABLE);
        if (surrogateKey) {
            // the store's statements name (scope, idem_key), never the primary key: they work unchanged
            try (Connection c = env.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                s.execute(JdbcIdempotencyStore.mysqlSurrogateKeyLayout(TABLE));
            }
        }
    }

    @Override
    public String label() {
        return env.databaseLabel()
                + (surrogateKey ? " [experiment: AUTO_INCREMENT id clustered, unique (scope, idem_key)]" : "");
    }

    @Override
    public IdempotencyStore store() {
        return store;
    }

    @Override
    public void fill(long keys, String template) throws SQLException {
        boolean pg = env.dialect() == SqlDialect.POSTGRESQL;
        String columns = "scope, idem_key, status, fingerprint, owner, payload, expires_at, purge_after";
        Timestamp expired = Timestamp.from(Instant.now().minus(Duration.ofDays(2)));
        try (Connection c = env.dataSource().getConnection()) {
            for (long from = 1; from <= keys; from += CHUNK) {
                long to = Math.min(keys, from + CHUNK - 1);
                String sql = pg
                        ? "INSERT INTO " + TABLE + " (" + columns + ") SELECT t.scope, md5(g::text), t.status,"
                                + " t.fingerprint, t.owner, t.payload, ?, ? FROM " + TABLE + " t, generate_series("
                                + from + ", " + to + ") g WHERE t.idem_key = ?"
                        : "INSERT INTO " + TABLE + " (" + columns + ") SELECT t.scope, MD5(g.seq), t.status,"
                                + " t.fingerprint, t.owner, t.payload, ?, ? FROM " + TABLE + " t JOIN seq_" + from
                                + "_to_" + to + " g WHERE t.idem_key = ?";
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.setTimestamp(1, expired);
                    ps.setTimestamp(2, expired);
                    ps.setString(3, template);
                    ps.executeUpdate();
                }
            }
            try (Statement s = c.createStatement()) {
                s.execute(pg ? "VACUUM ANALYZE " + TABLE : "ANALYZE TABLE " + TABLE);
            }
        }
    }

    /**
     * PostgreSQL: {@code CHECKPOINT}. MariaDB / MySQL: InnoDB's page cleaner is told to flush every
     * dirty page ({@code innodb_max_dirty_pages_pct = 0}) until fewer than 1 % of the buffer pool's
     * pages are dirty (at most {@value #SETTLE_LIMIT_SECONDS} s), then the setting is put back.
     * Where the lab's user may not do this, the study says so and goes on unsettled.
     */
    @Override
    public String settle() throws SQLException, InterruptedException {
        long t0 = System.nanoTime();
        try (Connection c = env.dataSource().getConnection();
                Statement s = c.createStatement()) {
            if (env.dialect() == SqlDialect.POSTGRESQL) {
                s.execute("CHECKPOINT");
                return String.format(Locale.ROOT, "CHECKPOINT, %.1f s", (System.nanoTime() - t0) / 1e9);
            }
            String before = scalar(s, "SELECT @@GLOBAL.innodb_max_dirty_pages_pct");
            long dirtyAtStart = dirtyPages(s);
            s.execute("SET GLOBAL innodb_max_dirty_pages_pct = 0");
            try {
                long limit = t0 + SETTLE_LIMIT_SECONDS * 1_000_000_000L;
                long total = Long.parseLong(scalar(s, "SELECT @@GLOBAL.innodb_buffer_pool_size")) / 16384;
                long dirty;
                while ((dirty = dirtyPages(s)) > total / 100 && System.nanoTime() - limit < 0) {
                    Thread.sleep(500); // polling the server's own counter; nothing to wait on instead
                }
                return String.format(
                        Locale.ROOT,
                        "InnoDB dirty pages %,d -> %,d (innodb_max_dirty_pages_pct 0 until under 1 %% of the pool), %.1f s",
                        dirtyAtStart,
                        dirty,
                        (System.nanoTime() - t0) / 1e9);
            } finally {
                s.execute("SET GLOBAL innodb_max_dirty_pages_pct = " + before);
            }
        } catch (SQLException e) {
            return "not settled (" + e.getMessage() + ")";
        }
    }

    private static long dirtyPages(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'")) {
            return rs.next() ? rs.getLong(2) : 0;
        }
    }

    private static String scalar(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Override
    public long storageBytes() throws SQLException {
        boolean pg = env.dialect() == SqlDialect.POSTGRESQL;
        try (Connection c = env.dataSource().getConnection()) {
            if (!pg) {
                try (Statement s = c.createStatement()) {
                    s.execute("ANALYZE TABLE " + TABLE);
                }
            }
            String sql = pg
                    ? "SELECT pg_total_relation_size(?::regclass)"
                    : "SELECT data_length + index_length FROM information_schema.tables"
                            + " WHERE table_schema = DATABASE() AND table_name = ?";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, TABLE);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }
    }

    @Override
    public String storageMeasure() {
        return env.dialect() == SqlDialect.POSTGRESQL
                ? "pg_total_relation_size (heap, indexes, TOAST) after VACUUM ANALYZE"
                : "information_schema data_length + index_length after ANALYZE TABLE (InnoDB's estimate)";
    }

    @Override
    public void expireFilled(long keys) {
        // written expired
    }

    @Override
    public long purgeStep() {
        return store.purgeExpired(PURGE_BATCH) < PURGE_BATCH ? 0 : -1;
    }

    @Override
    public String purgeMeasure() {
        return "JdbcIdempotencyStore.purgeExpired(" + PURGE_BATCH + ") in a loop on one thread, no pause";
    }

    @Override
    public void close() {
        env.close();
    }
}
