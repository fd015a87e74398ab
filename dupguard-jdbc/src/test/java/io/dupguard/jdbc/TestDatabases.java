package io.dupguard.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Pools on the real test servers (URLs from system properties set by the build; scripts/services
 * starts the servers). A server that cannot be reached fails the test; nothing is skipped.
 */
public final class TestDatabases {
    private static final AtomicInteger H2_COUNTER = new AtomicInteger();

    private TestDatabases() {}

    enum Db {
        H2,
        POSTGRESQL,
        MARIADB
    }

    static String url(Db db) {
        return switch (db) {
            case H2 -> "jdbc:h2:mem:dupguard-test;DB_CLOSE_DELAY=-1";
            case POSTGRESQL ->
                System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
            case MARIADB -> System.getProperty("dupguard.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test?user=root");
        };
    }

    /** The engine's shared ShardingSphere-JDBC data source over its shard databases ({@link ShardedDatabases}). */
    public static DataSource sharding(SqlDialect engine) {
        return ShardedDatabases.dataSource(engine == SqlDialect.POSTGRESQL ? Db.POSTGRESQL : Db.MARIADB);
    }

    static HikariDataSource pool(Db db, int size) {
        return pool(db, size, true);
    }

    /**
     * The Galera nodes' URLs, one a node (scripts/services starts them). Their session variable
     * {@code wsrep_sync_wait=7} makes reads, inserts, updates and deletes wait until the node has applied
     * every write set the cluster committed before them (docs/scaling.md, "Galera").
     */
    public static List<String> galeraUrls() {
        return List.of(System.getProperty(
                        "dupguard.galera.urls",
                        "jdbc:mariadb://127.0.0.1:3326/test?user=root&sessionVariables=wsrep_sync_wait=7,"
                                + "jdbc:mariadb://127.0.0.1:3327/test?user=root&sessionVariables=wsrep_sync_wait=7,"
                                + "jdbc:mariadb://127.0.0.1:3328/test?user=root&sessionVariables=wsrep_sync_wait=7")
                .split(",(?=jdbc:)"));
    }

    /**
     * Where the "machines" of a contract test connect: every machine to one server, or machine
     * {@code i} to node {@code i % n} of a cluster whose every node takes writes. {@code db} is the
     * SQL dialect the servers speak.
     */
    /** Where each test machine's connections come from: a machine's index and a pool size in, a pool out. */
    @FunctionalInterface
    interface MachinePools {
        DataSource pool(int machine, int size);
    }

    /**
     * The servers of a suite's machines: every machine on one server, machine {@code i} on node
     * {@code i % n} of a cluster, or ({@code sharded}) every machine on the engine's shared
     * ShardingSphere-JDBC data source over its two shard databases ({@link ShardedDatabases}).
     */
    record Servers(Db db, List<String> urls, boolean sharded) {
        Servers(Db db, List<String> urls) {
            this(db, urls, false);
        }

        static Servers one(Db db) {
            return new Servers(db, List.of(TestDatabases.url(db)));
        }

        /** ShardingSphere-JDBC over the engine's shard databases, its rules in {@code sharding/*.yaml}. */
        static Servers sharding(Db db) {
            return new Servers(db, ShardedDatabases.shardUrls(ShardedDatabases.yamlBytes(db)), true);
        }

        /** ShardingSphere-JDBC over MariaDB and over PostgreSQL: the runs of a {@code Sharding*IT}. */
        static java.util.stream.Stream<Servers> shardings() {
            return java.util.stream.Stream.of(sharding(Db.MARIADB), sharding(Db.POSTGRESQL));
        }

        /** The 3-node MariaDB Galera cluster: machine 0 on node 1, machine 1 on node 2, … */
        static Servers galera() {
            return new Servers(Db.MARIADB, galeraUrls());
        }

        String url(int machine) {
            return urls.get(machine % urls.size());
        }

        /** A pool of {@code size} connections per server, handed out in turn (threads on every node). */
        NodePools everyServer(int size) {
            return new NodePools(java.util.stream.IntStream.range(0, urls.size())
                    .mapToObj(i -> machine(i, size))
                    .toList());
        }

        /** The dialect, "galera" for a cluster, "sharding-" and the dialect: the name of a parameterized run. */
        @Override
        public String toString() {
            return sharded ? "sharding-" + db : urls.size() > 1 ? "galera" : db.toString();
        }

        /** A pool of {@code size} connections for {@code machine} on its own server or node. */
        HikariDataSource pool(int machine, int size) {
            if (sharded) {
                throw new IllegalStateException("the machines of " + this + " share one data source: machine(…)");
            }
            return TestDatabases.pool(url(machine), db + "-" + machine, size, true);
        }

        /** {@code machine}'s connections: its own pool, or the engine's shared ShardingSphere data source. */
        DataSource machine(int machine, int size) {
            return sharded ? ShardedDatabases.dataSource(db) : pool(machine, size);
        }

        /** As {@link #machine(int, int)}, every connection with autocommit as given. */
        DataSource machine(int machine, int size, boolean autoCommit) {
            if (autoCommit) {
                return machine(machine, size);
            }
            if (sharded) {
                return autoCommitOff(ShardedDatabases.dataSource(db));
            }
            return TestDatabases.pool(url(machine), db + "-" + machine, size, false);
        }
    }

    /** {@code ds} whose every connection comes with autocommit off, as a pool configured so hands it out. */
    static DataSource autoCommitOff(DataSource ds) {
        return (DataSource) java.lang.reflect.Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (p, m, args) -> {
                    Object r;
                    try {
                        r = m.invoke(ds, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (r instanceof java.sql.Connection c) {
                        c.setAutoCommit(false);
                    }
                    return r;
                });
    }

    /** A pool whose connections come with {@code autoCommit} as given. */
    static HikariDataSource pool(Db db, int size, boolean autoCommit) {
        return pool(url(db), db.toString(), size, autoCommit);
    }

    private static HikariDataSource pool(String url, String name, int size, boolean autoCommit) {
        HikariConfig config = new HikariConfig();
        config.setAutoCommit(autoCommit);
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setPoolName("test-" + name + "-" + H2_COUNTER.incrementAndGet());
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    /** Closes {@code ds} if it is a pool of its own (a shared ShardingSphere data source stays open). */
    static void close(DataSource ds) {
        if (ds instanceof HikariDataSource pool) {
            pool.close();
        }
    }

    /** A pool pointing at a port where nothing listens; creating it succeeds, using it fails fast. */
    static HikariDataSource unreachable(Db db) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(
                switch (db) {
                    case H2 -> "jdbc:h2:tcp://127.0.0.1:1/nowhere";
                    case POSTGRESQL -> "jdbc:postgresql://127.0.0.1:1/test?user=postgres&connectTimeout=1";
                    case MARIADB -> "jdbc:mariadb://127.0.0.1:1/test?user=root&connectTimeout=1000";
                });
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(250);
        config.setMaximumPoolSize(1);
        return new HikariDataSource(config);
    }

    static JdbcIdempotencyStore store(DataSource ds) {
        return JdbcIdempotencyStore.builder(ds).createSchemaIfMissing(true).build();
    }

    static JdbcLockProvider locks(DataSource ds) {
        return JdbcLockProvider.builder(ds).createSchemaIfMissing(true).build();
    }

    static JdbcRetryStore retries(DataSource ds) {
        return JdbcRetryStore.builder(ds).createSchemaIfMissing(true).build();
    }

    /** The first column of the first row of {@code query} (a {@code COUNT(*)}), with string parameters. */
    static int count(DataSource ds, String query, String... params) throws java.sql.SQLException {
        try (java.sql.Connection c = ds.getConnection();
                java.sql.PreparedStatement ps = c.prepareStatement(query)) {
            for (int i = 0; i < params.length; i++) {
                ps.setString(i + 1, params[i]);
            }
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** Transactions of the database (PostgreSQL, MariaDB) now waiting for a row lock. */
    static int lockWaits(DataSource ds, Db db) throws java.sql.SQLException {
        return count(ds, lockWaitsSql(db));
    }

    /**
     * Counts the transactions waiting on a lock in the connection's database, but for those of the
     * duplicate clean-up tests, which run beside the others ({@link Lanes}) on tables of
     * their own.
     */
    static String lockWaitsSql(Db db) {
        return db == Db.POSTGRESQL
                ? "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
                        + " AND query NOT ILIKE '%t\\_account%' AND query NOT ILIKE '%t\\_scale%'"
                        + " AND query NOT ILIKE '%dedupe%'"
                : "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'"
                        + " AND COALESCE(trx_query, '') NOT LIKE '%t\\_account%'"
                        + " AND COALESCE(trx_query, '') NOT LIKE '%t\\_scale%' AND COALESCE(trx_query, '') NOT LIKE '%dedupe%'";
    }
}
