package io.dupguard.lab.env;

import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.jdbc.SqlDialect;
import io.dupguard.lab.storm.Need;
import io.dupguard.lock.LockProvider;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The servers a storm runs against: always a database (embedded H2 unless {@code --jdbc-url}),
 * and Redis when {@code --redis-url} is given. Opening checks that each is reachable.
 */
public final class LabEnvironment implements AutoCloseable {
    private final Database database;
    private final RedisTarget redis;
    private final LabSql sql;
    private final String runId;

    private LabEnvironment(Database database, RedisTarget redis) {
        this.database = database;
        this.redis = redis;
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
        Database database = jdbcUrl == null ? Database.embedded() : Database.connect(jdbcUrl);
        try {
            return new LabEnvironment(database, redisUrl == null ? null : RedisTarget.connect(redisUrl));
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    /** A pool of {@value Database#POOL_SIZE} connections. */
    public DataSource dataSource() {
        return database.dataSource;
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

    public Optional<RedisTarget> redis() {
        return Optional.ofNullable(redis);
    }

    /** Whether a strategy's need is met. */
    public boolean has(Need need) {
        return switch (need) {
            case REDIS -> redis != null;
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

    @Override
    public void close() {
        try {
            if (redis != null) {
                redis.close();
            }
        } finally {
            database.close();
        }
    }
}
