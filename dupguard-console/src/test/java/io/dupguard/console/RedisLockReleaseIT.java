package io.dupguard.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.StoreUnavailableException;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.redis.RedisLockProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A Redis lock's release by force and its audit entry, on PostgreSQL and Redis, with real failures:
 * an audit entry the database refuses (an actor name longer than its column) leaves the lock held;
 * a release that finds another holder, or whose Redis connection is gone, rolls the entry back. The
 * release is caught between its audit insert and the Redis call by a table lock on the audit table
 * held by the test's own transaction (the insert waits for it, seen in {@code pg_stat_activity}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisLockReleaseIT {
    static final String PG =
            System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    static final String REDIS = System.getProperty("dupguard.redis.url", "redis://127.0.0.1:6379");
    static final Actor OPERATOR = new Actor("olga", true);

    ConsoleFixture f;
    RedisClient client;
    StatefulRedisConnection<String, String> test;
    String prefix;

    @BeforeAll
    void open() {
        f = new ConsoleFixture(PG);
        client = RedisClient.create(RedisURI.create(REDIS));
        test = client.connect();
        prefix = "console-release:" + f.prefix + ":";
    }

    @AfterAll
    void close() throws Exception {
        RedisCommands<String, String> redis = test.sync();
        for (String name : new String[] {"refund-run", "payout-run", "ledger-run"}) {
            redis.del(prefix + "{" + name + "}", prefix + "{" + name + "}:fence");
        }
        test.close();
        client.shutdown();
        f.close();
    }

    /** A console of its own over the fixture's tables, on a Redis connection of its own. */
    Console console(StatefulRedisConnection<String, String> connection) {
        return Console.builder(f.ds)
                .tables(Map.of(
                        "retry", f.prefix + "retry",
                        "idempotency", f.prefix + "idem",
                        "locks", f.prefix + "locks",
                        "audit", f.prefix + "audit"))
                .redisLocks(connection, prefix)
                .build();
    }

    long auditRows(String lock) throws Exception {
        try (Connection c = f.ds.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT COUNT(*) FROM " + f.prefix + "audit WHERE target = ?")) {
            ps.setString(1, "lock redis:" + lock);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Holds the audit table so that the console's insert waits; returns once it waits. */
    Connection holdAuditTable() throws Exception {
        Connection c = f.ds.getConnection();
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            st.execute("LOCK TABLE " + f.prefix + "audit IN EXCLUSIVE MODE");
        }
        return c;
    }

    void awaitAuditInsertWaiting() {
        String sql = "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO "
                + f.prefix + "audit%'";
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
            try (Connection c = f.ds.getConnection();
                    Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1) == 1;
            }
        });
    }

    @Test
    void anAuditEntryTheDatabaseRefusesLeavesTheLockHeld() throws Exception {
        try (RedisLockProvider provider =
                        RedisLockProvider.builder(client).keyPrefix(prefix).build();
                Console console = console(client.connect());
                Lease lease = provider.acquire("refund-run", LockOptions.ofDefaults())) {
            String owner = test.sync().get(prefix + "{refund-run}");
            Actor longName = new Actor("o".repeat(201), true); // the audit's actor column holds 200
            assertThatThrownBy(() -> console.releaseLock(longName, "redis", "refund-run", owner, "host gone"))
                    .isInstanceOf(StoreUnavailableException.class);
            assertThat(test.sync().get(prefix + "{refund-run}")).isEqualTo(owner);
            assertThat(lease.isHeld()).isTrue();
            assertThat(auditRows("refund-run")).isZero();

            Outcome o = console.releaseLock(OPERATOR, "redis", "refund-run", owner, "host gone");
            assertThat(o.changed()).as(o.message()).isTrue();
            assertThat(test.sync().exists(prefix + "{refund-run}")).isZero();
            assertThat(auditRows("refund-run")).isOne();
        }
    }

    @Test
    void aReleaseThatFindsAnotherHolderRollsItsAuditEntryBack() throws Exception {
        String key = prefix + "{payout-run}";
        test.sync().set(key, "owner-1", SetArgs.Builder.px(60_000));
        try (Console console = console(client.connect())) {
            Connection blocker = holdAuditTable();
            CompletableFuture<Outcome> release = CompletableFuture.supplyAsync(
                    () -> console.releaseLock(OPERATOR, "redis", "payout-run", "owner-1", "worker hangs"));
            try {
                awaitAuditInsertWaiting();
                // meanwhile owner-1's lease ends and owner-2 takes the lock
                test.sync().set(key, "owner-2", SetArgs.Builder.px(60_000));
            } finally {
                blocker.commit();
                blocker.close();
            }
            Outcome o = release.get();
            assertThat(o.changed()).isFalse();
            assertThat(o.message()).contains("changed meanwhile", "nothing changed");
            assertThat(test.sync().get(key)).isEqualTo("owner-2");
            assertThat(auditRows("payout-run")).isZero();
        }
    }

    @Test
    void aReleaseThatFailsRollsItsAuditEntryBack() throws Exception {
        String key = prefix + "{ledger-run}";
        test.sync().set(key, "owner-1", SetArgs.Builder.px(60_000));
        StatefulRedisConnection<String, String> consoles = client.connect();
        try (Console console = console(consoles)) {
            Connection blocker = holdAuditTable();
            CompletableFuture<Outcome> release = CompletableFuture.supplyAsync(
                    () -> console.releaseLock(OPERATOR, "redis", "ledger-run", "owner-1", "worker hangs"));
            try {
                awaitAuditInsertWaiting();
                consoles.close(); // the console loses Redis between its audit insert and the release
            } finally {
                blocker.commit();
                blocker.close();
            }
            assertThat(release)
                    .failsWithin(Duration.ofSeconds(20))
                    .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                    .withCauseInstanceOf(StoreUnavailableException.class);
            assertThat(test.sync().get(key)).isEqualTo("owner-1");
            assertThat(auditRows("ledger-run")).isZero();
        }
    }
}
