package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.Outcome;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.jdbc.JdbcTransactionalIdempotency.ClaimMode;
import io.dupguard.jdbc.TestDatabases.Servers;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What only a cluster whose every node takes writes shows: a transaction that loses certification
 * to another node's commit (error 1213), and a read on one node right after a commit on another.
 */
@Execution(ExecutionMode.CONCURRENT) // in the Galera lane: see Lanes
@ResourceLock(Lanes.GALERA)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GaleraCertificationIT {
    private final Servers galera = Servers.galera();
    private final HikariDataSource node1 = galera.pool(0, 4);
    private final HikariDataSource node2 = galera.pool(1, 4);
    private final String scope =
            "galera-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    private final ExecutorService threads = Executors.newCachedThreadPool();

    GaleraCertificationIT() throws SQLException {
        try (Connection c = node1.getConnection()) {
            TestOrders.createTable(c);
        }
    }

    @AfterAll
    void close() {
        threads.shutdownNow();
        node1.close();
        node2.close();
    }

    private IdempotencyKey key(String k) {
        return IdempotencyKey.of(scope, k);
    }

    private int insertOrder(Connection c, String orderNo) throws SQLException {
        return TestOrders.insert(c, scope, orderNo);
    }

    /**
     * Node 2 claims the key in its transaction and works; meanwhile node 1 claims it too (its own
     * row: node 2's is not committed, so not replicated), works and commits first. Node 2's
     * transaction loses certification (1213). The call re-decides and replays node 1's result, as
     * the second of two duplicates does on one server.
     */
    @Test
    void aTransactionThatLosesCertificationToAnotherNodeReplaysTheWinner() throws Exception {
        JdbcTransactionalIdempotency onNode1 = JdbcTransactionalIdempotency.of(
                TestDatabases.store(node1), IdempotencyConfig.ofDefaults(), ClaimMode.CLAIM_FIRST);
        JdbcTransactionalIdempotency onNode2 = JdbcTransactionalIdempotency.of(
                TestDatabases.store(node2), IdempotencyConfig.ofDefaults(), ClaimMode.CLAIM_FIRST);
        CountDownLatch node2Working = new CountDownLatch(1);
        CountDownLatch node1Committed = new CountDownLatch(1);
        AtomicInteger node2Runs = new AtomicInteger();
        Future<Outcome<String>> loser = threads.submit(
                () -> onNode2.executeInTransaction(key("cert"), Fingerprint.ofString("same"), String.class, c -> {
                    insertOrder(c, "cert");
                    if (node2Runs.incrementAndGet() == 1) {
                        node2Working.countDown();
                        assertThat(node1Committed.await(30, TimeUnit.SECONDS)).isTrue();
                    }
                    return "node 2";
                }));
        assertThat(node2Working.await(30, TimeUnit.SECONDS)).isTrue();
        Outcome<String> winner =
                onNode1.executeInTransaction(key("cert"), Fingerprint.ofString("same"), String.class, c -> {
                    insertOrder(c, "cert");
                    return "node 1";
                });
        node1Committed.countDown();

        assertThat(winner).isEqualTo(Outcome.first("node 1"));
        assertThat(loser.get(30, TimeUnit.SECONDS)).isEqualTo(Outcome.replayed("node 1"));
        assertThat(TestOrders.count(node2, scope, "cert")).isEqualTo(1);
    }

    /**
     * Fifteen callers, five on each node, call {@code executeInTransaction} with one key at once, in
     * either claim mode: one order commits and one caller gets {@code FIRST}; every other replays
     * it. (The callback may run on several nodes: a claim row's lock holds only on its node.)
     */
    @ParameterizedTest
    @EnumSource(ClaimMode.class)
    void fifteenCallersOnThreeNodesCommitOneOrderInEitherClaimMode(ClaimMode mode) throws Exception {
        List<HikariDataSource> pools = new ArrayList<>();
        try {
            List<JdbcTransactionalIdempotency> nodes = new ArrayList<>();
            for (int n = 0; n < 3; n++) {
                HikariDataSource pool = galera.pool(n, 5);
                pools.add(pool);
                nodes.add(JdbcTransactionalIdempotency.of(
                        TestDatabases.store(pool), IdempotencyConfig.ofDefaults(), mode));
            }
            String k = "three-nodes-" + mode;
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Outcome<Integer>>> calls = new ArrayList<>();
            for (int i = 0; i < 15; i++) {
                JdbcTransactionalIdempotency tx = nodes.get(i % 3);
                calls.add(threads.submit(() -> {
                    start.await();
                    return tx.executeInTransaction(
                            key(k), Fingerprint.ofString("same"), Integer.class, c -> insertOrder(c, k));
                }));
            }
            start.countDown();
            int firsts = 0;
            for (Future<Outcome<Integer>> call : calls) {
                Outcome<Integer> o = call.get(60, TimeUnit.SECONDS);
                assertThat(o.value()).isEqualTo(1);
                firsts += o.isReplay() ? 0 : 1;
            }
            assertThat(firsts).as("FIRST outcomes").isEqualTo(1);
            assertThat(TestOrders.count(node1, scope, k)).as("committed orders").isEqualTo(1);
        } finally {
            pools.forEach(HikariDataSource::close);
        }
    }

    /**
     * The raw conflict the stores meet: two nodes update one row, the second commit fails with
     * 1213 — which the stores take for transient (rolled back, to be decided again), not an outage.
     */
    @Test
    void twoNodesUpdatingOneRowFailTheSecondCommitWithATransientError() throws SQLException {
        String id = scope + "-row";
        try (Connection c = node1.getConnection();
                Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS dupguard_test_counters (id VARCHAR(100) PRIMARY KEY, n INT)");
            st.execute("INSERT INTO dupguard_test_counters VALUES ('" + id + "', 0)");
        }
        try (Connection first = node1.getConnection();
                Connection second = node2.getConnection()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            String update = "UPDATE dupguard_test_counters SET n = n + 1 WHERE id = '" + id + "'";
            try (Statement a = first.createStatement();
                    Statement b = second.createStatement()) {
                assertThat(a.executeUpdate(update)).isEqualTo(1);
                assertThat(b.executeUpdate(update)).isEqualTo(1);
                first.commit();
                SQLException lost = null;
                try {
                    second.commit();
                } catch (SQLException e) {
                    lost = e;
                }
                assertThat((Object) lost).as("the second commit fails").isNotNull();
                assertThat(lost.getErrorCode()).isEqualTo(1213);
                assertThat(JdbcAccess.isTransient(lost)).isTrue();
            }
        }
    }

    /**
     * With {@code wsrep_sync_wait=7} on the pools, a read on node 2 right after a commit on node 1
     * sees it: the claim as a duplicate, the completion as a result to replay.
     */
    @Test
    void aClaimAndACompletionOnNodeOneAreSeenAtOnceOnNodeTwo() {
        JdbcIdempotencyStore store1 = TestDatabases.store(node1);
        JdbcIdempotencyStore store2 = TestDatabases.store(node2);
        Fingerprint fp = Fingerprint.ofString("body");
        for (int i = 0; i < 200; i++) {
            IdempotencyKey k = key("seen-" + i);
            assertThat(store1.claim(k, fp, "owner-1", Duration.ofMinutes(1))).isEqualTo(Claim.FRESH);
            assertThat(store2.find(k)).as("claim %d seen on node 2", i).isPresent();
            store1.complete(k, "owner-1", RecordStatus.COMPLETED, bytes("done"), Duration.ofMinutes(5));
            Claim onNode2 = store2.claim(k, fp, "owner-2", Duration.ofMinutes(1));
            assertThat(onNode2).isInstanceOf(Claim.Existing.class);
            IdempotencyRecord seen = ((Claim.Existing) onNode2).record();
            assertThat(seen.status()).as("completion %d seen on node 2", i).isEqualTo(RecordStatus.COMPLETED);
        }
    }

    /**
     * A lock taken over on node 2 after its holder on node 1 lost it: the old holder's fenced write
     * on node 1 is refused — the fence check sees node 2's newer token at once.
     */
    @Test
    void aStaleHoldersFencedWriteOnAnotherNodeIsRefused() throws SQLException {
        Fence accounts = Fence.on("dupguard_test_fenced", "id", "fence");
        String id = scope + "-acct";
        try (Connection c = node1.getConnection();
                Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS dupguard_test_fenced (id VARCHAR(100) PRIMARY KEY,"
                    + " balance BIGINT NOT NULL, fence BIGINT DEFAULT 0)");
            st.execute("INSERT INTO dupguard_test_fenced (id, balance) VALUES ('" + id + "', 0)");
        }
        JdbcLockProvider locks1 = TestDatabases.locks(node1);
        JdbcLockProvider locks2 = TestDatabases.locks(node2);
        String name = "account:" + id;
        Lease paused = locks1.tryAcquire(
                        name,
                        LockOptions.custom().leaseTime(Duration.ofMillis(300)).build())
                .orElseThrow();
        try (Lease successor = locks2.acquire(
                        name,
                        LockOptions.custom().waitTime(Duration.ofSeconds(20)).build());
                Connection c2 = node2.getConnection()) {
            assertThat(successor.fencingToken()).isGreaterThan(paused.fencingToken());
            assertThat(accounts.update(c2, id, successor.fencingToken(), "balance = ?", 20))
                    .isTrue();
        }
        try (Connection c1 = node1.getConnection()) {
            assertThat(accounts.update(c1, id, paused.fencingToken(), "balance = ?", 10))
                    .isFalse();
        }
        paused.close();
        assertThat(TestDatabases.count(node1, "SELECT balance FROM dupguard_test_fenced WHERE id = ?", id))
                .isEqualTo(20);
    }

    /**
     * A URL without {@code wsrep_sync_wait} (or with too little of it): the stores and the helpers on
     * the caller's connection refuse the node before their first statement, naming the setting —
     * a check there could miss another node's row and let a duplicate in.
     */
    @Test
    void aNodeWhoseSessionDoesNotWaitForTheClusterIsRefusedNamingTheSetting() throws SQLException {
        String url = TestDatabases.galeraUrls().get(0);
        String bare = url.replaceAll("[&?]sessionVariables=wsrep_sync_wait=\\d+", "");
        assertThat(bare).doesNotContain("wsrep_sync_wait");
        for (String noWait : List.of(bare, bare + "&sessionVariables=wsrep_sync_wait=3")) {
            try (HikariDataSource pool = AbstractReadOnlyReplicaIT.pool(noWait)) {
                assertThatThrownBy(() -> TestDatabases.store(pool)
                                .claim(key("no-sync-wait"), Fingerprint.none(), "owner", Duration.ofSeconds(30)))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("wsrep_sync_wait = " + (noWait.equals(bare) ? "0" : "3"))
                        .hasMessageContaining("sessionVariables=wsrep_sync_wait=7");
                assertThatThrownBy(() -> TestDatabases.locks(pool).tryAcquire(scope + ":no-sync-wait"))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("wsrep_sync_wait");
                try (Connection c = pool.getConnection()) {
                    assertThatThrownBy(() -> Cas.deduct(c, "dupguard_test_no_such_table", "id", 1, "stock", 1))
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("wsrep_sync_wait");
                }
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
