package io.dupguard.lab.env;

import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.jdbc.SqlDialect;
import io.dupguard.lab.storm.Need;
import io.dupguard.lock.LockProvider;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The servers a storm runs against: always a database (embedded H2 unless {@code --jdbc-url});
 * Redis, the Redlock nodes and ZooKeeper only when their options are given. Opening checks that
 * each is reachable.
 */
public final class LabEnvironment implements AutoCloseable {
    private Database database; // swapped only between strategy runs (a fault's own server)
    private RedisTarget redis; // swapped only between strategy runs (a fault's own server)
    private final RedlockTarget redlock;
    private ReplicaTarget replica; // set once, right after opening
    private String instanceUrl; // --jdbc-url-2: where a second instance connects; null: the same server
    private ZooKeeperTarget zookeeper; // an instance's: its own session, opened on first use; guarded by this
    private LabSql sql;
    private final String runId;
    private final AtomicLong trials;
    private final LabEnvironment parent; // of a second instance
    private final List<LabEnvironment> instances = new CopyOnWriteArrayList<>();
    private final Map<String, Object> handedOver = new ConcurrentHashMap<>(); // by an instance, to its parent
    private final Set<String> handedOverByMe = ConcurrentHashMap.newKeySet();
    private final List<Runnable> onCrash = new CopyOnWriteArrayList<>();
    private volatile boolean crashed;

    private LabEnvironment(
            Database database,
            RedisTarget redis,
            RedlockTarget redlock,
            ZooKeeperTarget zookeeper,
            String runId,
            long trials,
            LabEnvironment parent) {
        this.database = database;
        this.redis = redis;
        this.redlock = redlock;
        this.zookeeper = zookeeper;
        this.sql = new LabSql(database.dialect);
        this.runId = runId;
        this.trials = new AtomicLong(trials);
        this.parent = parent;
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
        return open(jdbcUrl, redisUrl, redlockUrls, zookeeper, null);
    }

    /**
     * As {@link #open(String, String, String, String)}, with the PostgreSQL streaming standby of
     * {@code jdbcUrl} at {@code replicaUrl} (null for none), checked to be that database's standby.
     */
    public static LabEnvironment open(
            String jdbcUrl, String redisUrl, String redlockUrls, String zookeeper, String replicaUrl) {
        LabEnvironment env = openServers(jdbcUrl, redisUrl, redlockUrls, zookeeper);
        if (replicaUrl != null) {
            try {
                env.replica = ReplicaTarget.connect(replicaUrl, env.database);
            } catch (RuntimeException e) {
                closeQuietly(env, e);
                throw e;
            }
        }
        return env;
    }

    private static LabEnvironment openServers(String jdbcUrl, String redisUrl, String redlockUrls, String zookeeper) {
        List<AutoCloseable> opened = new ArrayList<>();
        try {
            Database database = jdbcUrl == null ? Database.embedded() : Database.connect(jdbcUrl);
            opened.add(database);
            RedisTarget redis = redisUrl == null ? null : RedisTarget.connect(redisUrl);
            opened.add(redis);
            RedlockTarget redlock = redlockUrls == null ? null : RedlockTarget.connect(redlockUrls);
            opened.add(redlock);
            ZooKeeperTarget zk = zookeeper == null ? null : ZooKeeperTarget.connect(zookeeper);
            return new LabEnvironment(
                    database,
                    redis,
                    redlock,
                    zk,
                    HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()),
                    0,
                    null);
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
     * Replaces every pooled connection: the idle ones are closed now, those in use when they come
     * back. The pool hands out a connection used in the last 500 ms without checking it, so after a
     * fault that terminated connections on the server, this keeps a dead one from reaching what runs
     * next (the retry job, the checker, the next trial's setup).
     */
    public void renewConnections() {
        database.dataSource.getHikariPoolMXBean().softEvictConnections();
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
        return useRedis(url, 0);
    }

    /**
     * As {@link #useRedis(String)}, with every Redis store, lock, token and throttle waiting for
     * {@code replicaAcks} replicas to acknowledge each write (0: none).
     */
    public AutoCloseable useRedis(String url, int replicaAcks) {
        RedisTarget own = RedisTarget.connect(url, replicaAcks);
        RedisTarget previous = redis;
        redis = own;
        return () -> {
            redis = previous;
            own.close();
        };
    }

    /**
     * Points every table and JDBC store of the next trials at the database at {@code url} until the
     * returned handle is closed, which restores the {@code --jdbc-url} database. For faults that need
     * a database server of their own.
     *
     * @throws UnreachableException naming the URL if it cannot be used
     */
    public AutoCloseable useDatabase(String url) {
        Database own = Database.connect(url);
        Database previous = database;
        LabSql previousSql = sql;
        database = own;
        sql = new LabSql(own.dialect);
        return () -> {
            database = previous;
            sql = previousSql;
            own.close();
        };
    }

    public Optional<RedisTarget> redis() {
        return Optional.ofNullable(redis);
    }

    /** The standby of {@code --jdbc-replica-url}, if given. */
    public Optional<ReplicaTarget> replica() {
        return Optional.ofNullable(replica);
    }

    public Optional<RedlockTarget> redlock() {
        return Optional.ofNullable(redlock);
    }

    public synchronized Optional<ZooKeeperTarget> zookeeper() {
        if (zookeeper == null && parent != null && parent.zookeeper != null) {
            // a second instance opens its own session only if a trial needs ZooKeeper
            zookeeper = parent.zookeeper.instance();
        }
        return Optional.ofNullable(zookeeper);
    }

    /**
     * Sessions on the lab's database right now, of every client (PostgreSQL {@code
     * pg_stat_activity}, MariaDB's process list, H2's sessions): for the soak's leak check.
     */
    public long databaseSessions() throws SQLException {
        String sql =
                switch (database.dialect) {
                    case POSTGRESQL -> "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()";
                    case MYSQL -> "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = DATABASE()";
                    default -> "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS";
                };
        try (Connection c = database.dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Whether a strategy's need is met. */
    public boolean has(Need need) {
        return switch (need) {
            case REDIS -> redis != null;
            case REDLOCK -> redlock != null;
            case REPLICA -> replica != null;
            case ZOOKEEPER -> zookeeper().isPresent();
        };
    }

    /**
     * A fresh lock provider for one run: dupguard's {@link JdbcLockProvider} on a new lock table in
     * the lab's database, so the lock lives where a hand-made lock table would.
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

    /**
     * The next trial's number, for names a trial must not share with an earlier one (Redis key
     * prefixes, ZooKeeper paths). A {@link #instance() second instance} continues from the number
     * this environment had when it was made, so the same trial opened first on it and then here
     * gets the same names.
     */
    public long nextTrial() {
        return trials.incrementAndGet();
    }

    /**
     * Makes every {@link #instance() second instance} connect to {@code url} ({@code --jdbc-url-2}):
     * another node of the same database, such as a second Galera node, whose tables are this one's.
     */
    public void instancesAt(String url) {
        this.instanceUrl = url;
    }

    /** The {@code --jdbc-url-2} second instances connect to, or empty for the same as {@link #jdbcUrl()}. */
    public Optional<String> instanceUrl() {
        return Optional.ofNullable(instanceUrl);
    }

    /**
     * A second application instance on the same servers, for the {@code instance-crash} fault: its
     * own connection pool, Redis client, Redlock client and ZooKeeper session on the same servers,
     * the same run id, and the trial numbering this environment has now. So a trial opened on it and
     * then the same trial opened here share tables, keys and lock paths, and {@link
     * #crashInstances()} can kill it without touching this one.
     *
     * @throws IllegalStateException on the embedded H2, which no second pool can share
     */
    public LabEnvironment instance() {
        if (database.url == null) {
            throw new IllegalStateException("a second instance needs a database server: give --jdbc-url");
        }
        List<AutoCloseable> opened = new ArrayList<>();
        try {
            Database own =
                    Database.connect(instanceUrl != null ? instanceUrl : database.url, Database.INSTANCE_POOL_SIZE);
            opened.add(own);
            RedisTarget ownRedis = redis == null ? null : RedisTarget.connect(redis.url());
            opened.add(ownRedis);
            RedlockTarget ownRedlock = redlock == null ? null : redlock.instance();
            opened.add(ownRedlock);
            LabEnvironment second = new LabEnvironment(own, ownRedis, ownRedlock, null, runId, trials.get(), this);
            second.replica = replica; // the naive strategy's reads: the parent's pool, closed by the parent
            instances.add(second);
            return second;
        } catch (RuntimeException e) {
            Collections.reverse(opened);
            for (AutoCloseable c : opened) {
                closeQuietly(c, e);
            }
            throw e;
        }
    }

    /**
     * What the lab itself keeps in this JVM about one trial — its observers, such as who is inside a
     * critical section as the lab sees it, and simulated outside systems — shared by the trial's
     * two openings: opened first on a {@link #instance() second instance}, {@code make} runs and its
     * result is handed to this instance's parent; opened then on the parent under the same {@code
     * name}, the handed-over object is returned. Without a second instance, {@code make} runs.
     * Never for application state: that lives in the servers, or the workload is not shared.
     */
    public <T> T sharedWithInstances(String name, Supplier<T> make) {
        if (parent != null) {
            T made = make.get();
            parent.handedOver.put(name, made);
            handedOverByMe.add(name);
            return made;
        }
        @SuppressWarnings("unchecked")
        T handed = (T) handedOver.remove(name);
        return handed != null ? handed : make.get();
    }

    /**
     * Kills every {@link #instance()} made from this environment the way a process dies: its pool's
     * connections are aborted mid-statement (the server rolls back what was not committed) and its
     * Redis connections dropped, without completing or releasing anything it held. Claims and
     * leases it held stay in the stores until they expire.
     */
    public void crashInstances() {
        for (LabEnvironment i : instances) {
            i.crashed = true;
            i.database.crash();
            if (i.redis != null) {
                i.redis.crash();
            }
            if (i.redlock != null) {
                i.redlock.crash();
            }
            i.crashZooKeeper();
            i.onCrash.forEach(Runnable::run);
        }
    }

    private synchronized void crashZooKeeper() {
        if (zookeeper != null) {
            zookeeper.crash();
        }
    }

    /**
     * Runs {@code stop} when {@link #crashInstances()} kills this instance, after its connections
     * are gone: for the threads it was running, which a dead process does not leave waiting.
     */
    public void onCrash(Runnable stop) {
        onCrash.add(stop);
    }

    /** Whether this is an instance that {@link #crashInstances()} killed. */
    public boolean crashed() {
        return crashed;
    }

    /**
     * Closes every server connection (and stops an embedded ZooKeeper; an instance's ZooKeeper is
     * only its session), each even if another fails.
     */
    @Override
    public void close() {
        RuntimeException failure = null;
        if (parent != null) {
            parent.instances.remove(this);
            parent.handedOver.keySet().removeAll(handedOverByMe); // if the parent never opened its half
        }
        AutoCloseable[] own;
        synchronized (this) {
            own = new AutoCloseable[] {zookeeper, redlock, redis, parent == null ? replica : null, database};
        }
        for (AutoCloseable c : own) {
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
