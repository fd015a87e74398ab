package io.dupguard.jdbc;

import io.dupguard.StoreUnavailableException;
import io.dupguard.lock.LockProvider;
import io.dupguard.lock.spi.AbstractLockProvider;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * {@link LockProvider} on a SQL table (H2, PostgreSQL, MySQL/MariaDB): one row per lock name with
 * the owner token, {@code lease_until} in <b>database</b> time and a {@code fence} counter (guarantee L2,
 * L3, L5, L7). It fixes the naive {@code myLock} table: locks expire, only the owner releases, and
 * acquisition is reentrant per owner ({@link AbstractLockProvider}).
 *
 * <p>Acquire, on one connection from the pool per attempt, in autocommit:
 *
 * <ol>
 *   <li>Insert the row with fence 1 if the name was never locked, or else take it over if it is
 *       free or expired — guarded by {@code owner IS NULL OR lease_until <= now} — setting owner,
 *       lease and {@code fence = fence + 1}; the new fence comes back from the same statement. One
 *       statement on PostgreSQL ({@code INSERT … ON CONFLICT DO UPDATE … WHERE free RETURNING
 *       fence}) and MySQL/MariaDB ({@code INSERT … ON DUPLICATE KEY UPDATE} with conditional
 *       assignments, the fence reported through {@code LAST_INSERT_ID(fence + 1)}). On H2 an update
 *       ({@code SELECT fence FROM FINAL TABLE (UPDATE …)}) and, if it took no row, an insert where
 *       only a unique violation means "held".
 *   <li>A row came back ⇒ acquired with that fence; none ⇒ held by another owner with an unexpired
 *       lease.
 *   <li>Held ⇒ {@link AbstractLockProvider} polls again with jittered, growing pauses until the
 *       wait time ends; SQL has no release notifications.
 * </ol>
 *
 * <p>Extend, release and "is held" are single statements guarded by {@code name = ? AND owner = ?}.
 * Release clears the owner instead of deleting the row, so the fence keeps increasing across
 * holders and restarts; the table holds one small row per distinct name ever locked.
 *
 * <p>Every {@link SQLException} surfaces as {@link StoreUnavailableException} — never as "free" or
 * "taken". Deadlock and serialization failures (SQLState 40001, 40P01) are retried a few times:
 * the failed statement changed nothing. The dialect is detected on first use, so a provider on a
 * database that is down can be built and fails on its first call. Thread-safe.
 */
public final class JdbcLockProvider extends AbstractLockProvider {
    /** Default table name. */
    public static final String DEFAULT_TABLE = "dupguard_locks";

    private static final int ATTEMPTS = JdbcAccess.TRANSIENT_ATTEMPTS;
    // Longer leases are indistinguishable from "forever" and would overflow date arithmetic.
    private static final long MAX_LEASE_MILLIS = Duration.ofDays(365L * 100).toMillis();

    private final JdbcAccess access;
    private volatile LockSql sql;

    private JdbcLockProvider(Builder b) {
        this.access = b.access();
    }

    /**
     * A provider on {@code dataSource} with the defaults (table {@value #DEFAULT_TABLE}, detected
     * dialect).
     *
     * @param dataSource the database; not null
     * @return a thread-safe provider
     */
    public static JdbcLockProvider create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /**
     * A builder: table name, dialect and schema creation (off by default) can be set.
     *
     * @param dataSource the application's data source
     * @return a new builder
     * @throws NullPointerException if {@code dataSource} is null
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * The dialect in use, detecting it (and creating the table, if configured) on a pooled
     * connection the first time; later calls take no connection.
     *
     * @return the dialect; never null
     * @throws StoreUnavailableException if the database cannot be reached
     */
    public SqlDialect dialect() {
        // Once known, answered without a connection: a caller may already hold the pool's last one.
        LockSql s = sql;
        return s != null ? s.dialect : withConnection("detect dialect", c -> sql(c).dialect);
    }

    /**
     * The lock table's name.
     *
     * @return the table name; never null
     */
    public String tableName() {
        return access.table();
    }

    @Override
    protected OptionalLong tryLock(String name, String token, Duration lease) {
        long millis = leaseMillis(lease);
        return withConnection("lock", name, c -> sql(c).tryLock(c, name, token, millis));
    }

    @Override
    protected boolean extend(String name, String token, Duration lease) {
        long millis = leaseMillis(lease);
        return withConnection("extend lock", name, c -> sql(c).extend(c, name, token, millis));
    }

    @Override
    protected void unlock(String name, String token) {
        withConnection("unlock", name, c -> {
            sql(c).unlock(c, name, token);
            return null;
        });
    }

    @Override
    protected OptionalLong transfer(String name, String fromToken, String toToken, Duration lease) {
        long millis = leaseMillis(lease);
        return withConnection("hand over lock", name, c -> sql(c).transfer(c, name, fromToken, toToken, millis));
    }

    /** One guarded UPDATE moves a contended lock to the next waiter of this JVM. */
    @Override
    protected boolean transfersLocally() {
        return true;
    }

    @Override
    protected boolean isHeld(String name, String token) {
        return withConnection("check lock", name, c -> sql(c).isHeld(c, name, token));
    }

    /** Whole milliseconds, rounded up so a sub-millisecond lease is not already expired. */
    private static long leaseMillis(Duration lease) {
        if (lease.compareTo(Duration.ofMillis(MAX_LEASE_MILLIS)) >= 0) {
            return MAX_LEASE_MILLIS;
        }
        long millis = lease.toMillis();
        return lease.equals(Duration.ofMillis(millis)) ? millis : millis + 1;
    }

    private LockSql sql(Connection c) throws SQLException {
        SqlDialect dialect = access.dialect(c);
        LockSql s = sql;
        if (s == null) {
            s = new LockSql(dialect, access.table());
            sql = s;
        }
        return s;
    }

    private <R> R withConnection(String operation, JdbcAccess.SqlFunction<R> fn) {
        return access.withConnectionRetryingTransient(operation, null, fn, ATTEMPTS);
    }

    /** The error message names the operation and the lock, joined only on failure. */
    private <R> R withConnection(String operation, String name, JdbcAccess.SqlFunction<R> fn) {
        return access.withConnectionRetryingTransient(operation, new LockName(name), fn, ATTEMPTS);
    }

    private record LockName(String name) {
        @Override
        public String toString() {
            return "'" + name + "'";
        }
    }

    /** Builder; not thread-safe. */
    public static final class Builder extends JdbcStoreBuilder<Builder, JdbcLockProvider> {
        private Builder(DataSource dataSource) {
            super(dataSource, DEFAULT_TABLE);
        }

        @Override
        public JdbcLockProvider build() {
            return new JdbcLockProvider(this);
        }
    }
}
