package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.retry.ClaimedTask;
import io.dupguard.retry.NewTask;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A claim of one task through ShardingSphere on MariaDB, held open at its commit, holds exactly
 * one due row locked over both shards: the candidates are read without a lock, and only those
 * are locked (docs/scaling-sharding.md).
 */
@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class ShardingMariaDbRetryClaimLocksIT {
    @Test
    void aClaimOfOneLocksOneRowAcrossTheShards() throws Exception {
        DataSource sharded = ShardedDatabases.dataSource(Db.MARIADB);
        List<String> urls = ShardedDatabases.shardUrls(ShardedDatabases.yamlBytes(Db.MARIADB));
        JdbcRetryStore plain = enqueueOnEveryShard(sharded, urls.size());
        CountDownLatch committing = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        JdbcRetryStore paused = JdbcRetryStore.create(pausingCommit(sharded, committing, proceed));
        CompletableFuture<List<ClaimedTask>> claim =
                CompletableFuture.supplyAsync(() -> paused.claim("locker", 1, Duration.ofMinutes(5)));
        try {
            assertThat(committing.await(20, TimeUnit.SECONDS))
                    .as("the claim reached its commit")
                    .isTrue();
            int locked = 0;
            for (String url : urls) {
                locked += lockedDueRows(url);
            }
            assertThat(locked)
                    .as("due rows the open claim holds locked, over both shards")
                    .isEqualTo(1);
        } finally {
            proceed.countDown();
        }
        List<ClaimedTask> claimed = claim.get(20, TimeUnit.SECONDS);
        assertThat(claimed).hasSize(1);
        for (ClaimedTask t : claimed) {
            plain.succeed(t);
        }
        drain(plain);
    }

    /**
     * The claim statement of one MariaDB database ({@code … ORDER BY due_at LIMIT ? FOR UPDATE SKIP
     * LOCKED}) sent through ShardingSphere in one transaction with a limit of one: each shard runs it
     * with the limit, so every shard holds its earliest due row locked, while the merged result
     * returns one row. Another worker's claim skips the locked rows the first one never returns.
     */
    @Test
    void theOneDatabaseClaimStatementLocksARowOnEveryShardWhileReturningOne() throws Exception {
        DataSource sharded = ShardedDatabases.dataSource(Db.MARIADB);
        List<String> urls = ShardedDatabases.shardUrls(ShardedDatabases.yamlBytes(Db.MARIADB));
        JdbcRetryStore plain = enqueueOnEveryShard(sharded, urls.size());
        int returned = 0;
        int locked = 0;
        try (Connection c = sharded.getConnection()) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            c.setAutoCommit(false);
            try (java.sql.PreparedStatement ps =
                    c.prepareStatement(new RetrySql(SqlDialect.MYSQL, JdbcRetryStore.DEFAULT_TABLE).claim)) {
                ps.setInt(1, 1);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        returned++;
                    }
                }
            }
            for (String url : urls) {
                locked += lockedDueRows(url);
            }
            c.rollback();
        }
        assertThat(returned).as("rows the claim returns").isEqualTo(1);
        assertThat(locked).as("due rows it holds locked, over both shards").isEqualTo(urls.size());
        drain(plain);
    }

    /** A due task on every shard, through {@code sharded}; returns the store that enqueued them. */
    private static JdbcRetryStore enqueueOnEveryShard(DataSource sharded, int shards) {
        JdbcRetryStore plain = JdbcRetryStore.create(sharded);
        String type = "locks" + Long.toHexString(System.nanoTime());
        for (int shard = 0; shard < shards; shard++) {
            plain.enqueue(
                    new NewTask(type, new byte[] {1}, null, AbstractShardedRetryStoreIT.keyOnShard(shard, shards)));
        }
        return plain;
    }

    /** Completes the tasks still due (the other shard's, anything due), for the tests after this one. */
    private static void drain(JdbcRetryStore plain) {
        for (int i = 0; i < 5; i++) {
            for (ClaimedTask t : plain.claim("locker", 50, Duration.ofMinutes(5))) {
                plain.succeed(t);
            }
        }
    }

    /** Due rows of a shard that another transaction holds locked: those a non-locking read sees and SKIP LOCKED does not. */
    private static int lockedDueRows(String url) throws SQLException {
        String due = "FROM " + JdbcRetryStore.DEFAULT_TABLE + " WHERE due_at <= UTC_TIMESTAMP(6)";
        try (Connection c = DriverManager.getConnection(url, "root", "");
                Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            int all = count(st, "SELECT COUNT(*) " + due);
            int free;
            try (ResultSet rs = st.executeQuery("SELECT id " + due + " FOR UPDATE SKIP LOCKED")) {
                free = 0;
                while (rs.next()) {
                    free++;
                }
            }
            c.rollback();
            return all - free;
        }
    }

    private static int count(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** {@code ds} whose connections, at {@code commit()}, signal {@code reached} and wait for {@code proceed}. */
    private static DataSource pausingCommit(DataSource ds, CountDownLatch reached, CountDownLatch proceed) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (p, m, args) -> {
                    Object r = m.invoke(ds, args);
                    if (!(r instanceof Connection c)) {
                        return r;
                    }
                    return Proxy.newProxyInstance(
                            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (cp, cm, cargs) -> {
                                if (cm.getName().equals("commit")) {
                                    reached.countDown();
                                    proceed.await(30, TimeUnit.SECONDS);
                                }
                                try {
                                    return cm.invoke(c, cargs);
                                } catch (java.lang.reflect.InvocationTargetException e) {
                                    throw e.getCause();
                                }
                            });
                });
    }
}
