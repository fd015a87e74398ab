package io.dupguard.bench.lock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.JdbcLockProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * PostgreSQL or MariaDB: dupguard's {@link JdbcLockProvider}, Spring Integration's {@code
 * JdbcLockRegistry} and ShedLock's {@code JdbcTemplateLockProvider}, each on its own HikariCP pool
 * and its own table.
 */
final class SqlLocks implements Backend {
    static final String DUPGUARD = "dupguard JdbcLockProvider";
    static final String SPRING = "Spring JdbcLockRegistry";
    static final String SHEDLOCK = "ShedLock JdbcTemplateLockProvider";

    static final String DUPGUARD_TABLE = "bench_lock_dupguard";
    /** Spring's INT_LOCK under the prefix BENCH_ ({@code DefaultLockRepository.setPrefix}). */
    static final String SPRING_PREFIX = "BENCH_INT_";

    static final String SHEDLOCK_TABLE = "bench_shedlock";

    /** ShedLock's lease ({@code lockAtMostFor}); dupguard uses its 30 s default, Spring its 10 s TTL. */
    static final Duration SHEDLOCK_AT_MOST = Duration.ofSeconds(30);

    private final String id;
    private final String title;
    private final String url;
    private final int poolSize;
    private final boolean postgres;
    private final String server;
    private final List<HikariDataSource> pools = new ArrayList<>();
    private final List<LockImpl> impls = new ArrayList<>();

    SqlLocks(String id, String title, String url, int poolSize) throws SQLException {
        this.id = id;
        this.title = title;
        this.url = url;
        this.poolSize = poolSize;
        try {
            HikariDataSource setup = pool("setup", 1);
            try (Connection c = setup.getConnection()) {
                DatabaseMetaData md = c.getMetaData();
                server = md.getDatabaseProductName() + " " + md.getDatabaseProductVersion();
                postgres = md.getDatabaseProductName()
                        .toLowerCase(java.util.Locale.ROOT)
                        .contains("postgres");
                createTables(c);
            }
            LeaseRowLocks.createTables(setup, postgres);
            setup.close();
            pools.remove(setup);
            impls.add(dupguard(pool("dupguard", poolSize)));
            impls.add(spring(pool("spring", poolSize)));
            impls.add(shedlock(pool("shedlock", poolSize)));
            impls.add(LeaseRowLocks.lean(pool("lean", poolSize), postgres));
            impls.add(LeaseRowLocks.sameTable(pool("same-table", poolSize), postgres));
        } catch (SQLException | RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    private HikariDataSource pool(String label, int size) {
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url);
        hc.setMaximumPoolSize(size);
        hc.setMinimumIdle(size);
        hc.setPoolName("bench-lock-" + id + "-" + label);
        HikariDataSource ds = new HikariDataSource(hc);
        pools.add(ds);
        return ds;
    }

    private void createTables(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(springDdl());
            st.execute(
                    postgres
                            // ShedLock's README, PostgreSQL
                            ? "CREATE TABLE IF NOT EXISTS " + SHEDLOCK_TABLE + " (name VARCHAR(64) NOT NULL,"
                                    + " lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL,"
                                    + " locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))"
                            // ShedLock's README, MySQL/MariaDB
                            : "CREATE TABLE IF NOT EXISTS " + SHEDLOCK_TABLE + " (name VARCHAR(64) NOT NULL,"
                                    + " lock_until TIMESTAMP(3) NOT NULL, locked_at TIMESTAMP(3) NOT NULL DEFAULT"
                                    + " CURRENT_TIMESTAMP(3), locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
            // A previous run that was killed may have left locks held: start from free locks.
            st.execute("DELETE FROM " + SPRING_PREFIX + "LOCK");
            st.execute("DELETE FROM " + SHEDLOCK_TABLE);
        }
        // dupguard creates its table on first use (createSchemaIfMissing); clear it if it exists.
        if (tableExists(c, DUPGUARD_TABLE)) {
            try (Statement st = c.createStatement()) {
                st.execute("DELETE FROM " + DUPGUARD_TABLE);
            }
        }
    }

    private boolean tableExists(Connection c, String table) throws SQLException {
        String sql = "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = ? AND table_schema = "
                + (postgres ? "current_schema()" : "DATABASE()");
        try (java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, table);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        }
    }

    /** The INT_LOCK table of the DDL shipped in spring-integration-jdbc, under the bench prefix. */
    private String springDdl() {
        String resource = "org/springframework/integration/jdbc/schema-" + (postgres ? "postgresql" : "mysql") + ".sql";
        String ddl;
        try (InputStream in = DefaultLockRepository.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the class path");
            }
            ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + resource, e);
        }
        Matcher m = Pattern.compile("CREATE TABLE INT_LOCK\\s*\\(.*?\\)\\s*(ENGINE=InnoDB)?\\s*;", Pattern.DOTALL)
                .matcher(ddl);
        if (!m.find()) {
            throw new IllegalStateException("no CREATE TABLE INT_LOCK in " + resource);
        }
        String create = m.group().trim();
        create = create.substring(0, create.length() - 1); // no ';' for JDBC
        return create.replace("CREATE TABLE INT_LOCK", "CREATE TABLE IF NOT EXISTS " + SPRING_PREFIX + "LOCK")
                .replace("constraint INT_LOCK_PK", "constraint " + SPRING_PREFIX + "LOCK_PK");
    }

    @Override
    public String title() {
        return title;
    }

    @Override
    public String server() {
        return server;
    }

    @Override
    public List<LockImpl> impls() {
        return impls;
    }

    private static LockImpl dupguard(DataSource ds) {
        JdbcLockProvider locks = JdbcLockProvider.builder(ds)
                .tableName(DUPGUARD_TABLE)
                .createSchemaIfMissing(true)
                .build();
        return Impl.dupguard(
                DUPGUARD,
                "acquire: one autocommit upsert guarded by `owner IS NULL OR lease_until <= now` that returns the"
                        + " new fence; release: one autocommit `UPDATE … SET owner = NULL`. Defaults: 30 s lease"
                        + " renewed by the Watchdog, 30 s wait.",
                "FIFO gate per name in the JVM, only its head asks the database; a holder closing while a"
                        + " thread of its JVM waits hands the lock over with one guarded `UPDATE … SET owner = <next>,"
                        + " fence = fence + 1` instead of release + acquire, at most 8 times in a row before a real"
                        + " release; a refused head polls with a jittered pause of 5 ms doubling to 100 ms"
                        + " (cross-JVM waiters only)",
                locks);
    }

    private static LockImpl spring(DataSource ds) {
        DefaultLockRepository repository = new DefaultLockRepository(ds);
        repository.setPrefix(SPRING_PREFIX);
        repository.setRegion("bench");
        repository.setTransactionManager(new DataSourceTransactionManager(ds));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        repository.start();
        JdbcLockRegistry registry = new JdbcLockRegistry(repository);
        return new Impl(
                SPRING,
                LockImpl.Role.PEER,
                "`obtain(name).lock()`: a READ_COMMITTED transaction with `UPDATE` (0 rows: release deleted the"
                        + " row) then `INSERT`, commit; `unlock()`: a transaction with `DELETE`, commit."
                        + " spring-integration-jdbc 6.5.1 defaults (10 s TTL, no renewal).",
                "a per-name `ReentrantLock` (non-fair) in the JVM, so only one thread asks the database; a refused"
                        + " holder of that lock polls every 100 ms",
                () -> name -> {
                    Lock lock = registry.obtain(name);
                    lock.lock();
                    return lock::unlock;
                });
    }

    private static LockImpl shedlock(DataSource ds) {
        JdbcTemplateLockProvider provider =
                new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                        .withJdbcTemplate(new JdbcTemplate(ds))
                        .withTableName(SHEDLOCK_TABLE)
                        .usingDbTime()
                        .build());
        return new Impl(
                SHEDLOCK,
                LockImpl.Role.PEER,
                "`lock(config)`: a transaction with one guarded `UPDATE … WHERE lock_until <= now`, commit (the"
                        + " first `INSERT` per name is cached); `unlock()`: a transaction with `UPDATE lock_until ="
                        + " now`, commit. shedlock 6.9.2, `usingDbTime()`, lockAtMostFor 30 s, lockAtLeastFor 0.",
                "none: `lock()` never waits. " + Polling.description(),
                () -> name -> Polling.acquire(() -> provider.lock(
                                new LockConfiguration(ClockProvider.now(), name, SHEDLOCK_AT_MOST, Duration.ZERO))
                        .<LockImpl.Held>map(held -> held::unlock)
                        .orElse(null)));
    }

    @Override
    public Audited audit(LockImpl measured) {
        Function<DataSource, LockImpl> twin =
                switch (measured.name()) {
                    case DUPGUARD -> SqlLocks::dupguard;
                    case SPRING -> SqlLocks::spring;
                    case SHEDLOCK -> SqlLocks::shedlock;
                    case LeaseRowLocks.LEAN -> ds -> LeaseRowLocks.lean(ds, postgres);
                    case LeaseRowLocks.SAME_TABLE -> ds -> LeaseRowLocks.sameTable(ds, postgres);
                    default -> throw new IllegalArgumentException(measured.name());
                };
        HikariDataSource pool = pool("audit", poolSize);
        CountingDataSource counting = new CountingDataSource(pool);
        LockImpl impl = twin.apply(counting);
        return new Audited() {
            @Override
            public LockImpl impl() {
                return impl;
            }

            @Override
            public void start() {
                counting.reset();
            }

            @Override
            public Map<String, Long> stop() {
                return counting.snapshot();
            }

            @Override
            public void close() {
                pool.close();
                pools.remove(pool);
            }
        };
    }

    @Override
    public void close() {
        for (HikariDataSource ds : pools) {
            ds.close();
        }
        pools.clear();
    }
}
