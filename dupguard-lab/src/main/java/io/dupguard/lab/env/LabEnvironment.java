package io.dupguard.lab.env;

import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.jdbc.SqlDialect;
import io.dupguard.lab.storm.Need;
import io.dupguard.lock.LockProvider;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The servers a storm runs against: always a database (embedded H2 unless {@code --jdbc-url});
 * Redis, the Redlock nodes and ZooKeeper only when their options are given. Opening checks that
 * each is reachable.
 */
public final class LabEnvironment implements AutoCloseable {
    private final Database database;
    private RedisTarget redis; // swapped only between strategy runs (a fault's own server)
    private final RedlockTarget redlock;
    private final ZooKeeperTarget zookeeper;
    private final LabSql sql;
    private final String runId;

    private LabEnvironment(Database database, RedisTarget redis, RedlockTarget redlock, ZooKeeperTarget zookeeper) {
        this.database = database;
        this.redis = redis;
        this.redlock = redlock;
        this.zookeeper = zookeeper;
        this.sql = new LabSql(database.dialect);
        this.runId = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    }

    /**
     * Connects to the database and Redis.
     *
     * @param jdbcUrl null for embedded in-memory H2
     * @param redisUrl null for no Redis
     * @throws UnreachableException naming the URL if a server cannot be used
     * @throws IllegalArgumentException if {@code redisUrl} is malformed
     */
    public static LabEnvironment open(String jdbcUrl, String redisUrl) {
        return open(jdbcUrl, redisUrl, null, null);
    }

    /**
     * Connects to the database and every server given.
     *
     * @param redlockUrls null for no Redlock, else at least three comma-separated {@code redis://}
     *     URIs of independent servers
     * @param zookeeper null for no ZooKeeper, {@code embedded} to start one in this process, or a
     *     connect string
     * @throws UnreachableException naming the URL if a server cannot be used
     * @throws IllegalArgumentException if a URL is malformed
     */
    public static LabEnvironment open(String jdbcUrl, String redisUrl, String redlockUrls, String zookeeper) {
        List<AutoCloseable> opened = new ArrayList<>();
        try {
            Database database = jdbcUrl == null ? Database.embedded() : Database.connect(jdbcUrl);
            opened.add(database);
            RedisTarget redis = redisUrl == null ? null : RedisTarget.connect(redisUrl);
            opened.add(redis);
            RedlockTarget redlock = redlockUrls == null ? null : RedlockTarget.connect(redlockUrls);
            opened.add(redlock);
            ZooKeeperTarget zk = zookeeper == null ? null : ZooKeeperTarget.connect(zookeeper);
            return new LabEnvironment(database, redis, redlock, zk);
        } catch (RuntimeException e) {
            Collections.reverse(opened);
            for (AutoCloseable c : opened) {
                closeQuietly(c, e);
            }
            throw e;
        }
    }

    private static void closeQuietly(AutoCloseable c, RuntimeException failure) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
    }

    /** A pool of {@value Database#POOL_SIZE} connections. */
    public DataSource dataSource() {
        return database.dataSource;
    }

    /**
     * The server database's JDBC URL and the lab's own connections to it (for faults); empty for
     * the embedded H2.
     */
    public Optional<TrackedConnections> trackedConnections() {
        return Optional.ofNullable(database.tracked);
    }

    /** The {@code --jdbc-url}, or empty for the embedded H2. */
    public Optional<String> jdbcUrl() {
        return Optional.ofNullable(database.url);
    }

    public SqlDialect dialect() {
        return database.dialect;
    }

    public LabSql sql() {
        return sql;
    }

    /** The database as the report names it (passwords masked). */
    public String databaseLabel() {
        return database.label;
    }

    /**
     * Points the Redis strategies at {@code url} until the returned handle is closed, which
     * restores the {@code --redis-url} target. For faults that need a Redis server of their own.
     */
    public AutoCloseable useRedis(String url) {
        RedisTarget own = RedisTarget.connect(url);
        RedisTarget previous = redis;
        redis = own;
        return () -> {
            redis = previous;
            own.close();
        };
    }

    public Optional<RedisTarget> redis() {
        return Optional.ofNullable(redis);
    }

    public Optional<RedlockTarget> redlock() {
        return Optional.ofNullable(redlock);
    }

    public Optional<ZooKeeperTarget> zookeeper() {
        return Optional.ofNullable(zookeeper);
    }

    /** Whether a strategy's need is met. */
    public boolean has(Need need) {
        return switch (need) {
            case REDIS -> redis != null;
            case REDLOCK -> redlock != null;
            case ZOOKEEPER -> zookeeper != null;
        };
    }

    /**
     * A fresh lock provider for one run: dupguard's {@link JdbcLockProvider} on a new lock table in
     * the lab's database, so the lock lives where the seed's lock table would.
     */
    public LockProvider newLockProvider(String table) throws SQLException {
        LabSql.recreate(database.dataSource, new String[] {table});
        JdbcLockProvider locks = JdbcLockProvider.builder(database.dataSource)
                .tableName(table)
                .createSchemaIfMissing(true)
                .build();
        locks.dialect(); // creates the table now, not under the first burst of acquisitions
        return locks;
    }

    /** What {@link #newLockProvider} builds, for the report. */
    public String lockLabel() {
        return "JdbcLockProvider (" + database.dialect.id() + ")";
    }

    /** Random per process, so keys of an earlier run with the same seed never collide. */
    public String runId() {
        return runId;
    }

    /** Closes every server connection (and stops an embedded ZooKeeper), each even if another fails. */
    @Override
    public void close() {
        RuntimeException failure = null;
        for (AutoCloseable c : new AutoCloseable[] {zookeeper, redlock, redis, database}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("closing the lab's servers failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
