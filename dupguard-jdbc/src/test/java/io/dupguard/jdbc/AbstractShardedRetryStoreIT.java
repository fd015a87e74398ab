package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.retry.ClaimedTask;
import io.dupguard.retry.Enqueued;
import io.dupguard.retry.NewTask;
import io.dupguard.retry.RetryTask;
import io.dupguard.retry.TaskPage;
import io.dupguard.retry.TaskState;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The retry store contract through ShardingSphere-JDBC, and what sharding by task key changes:
 * ids are unique (each shard hands out its own residue) but not in enqueue order across shards,
 * and a worker's write must reach the task's own shard.
 */
abstract class AbstractShardedRetryStoreIT extends AbstractJdbcRetryStoreIT {
    private final Db engine;

    AbstractShardedRetryStoreIT(Db engine) {
        super(size -> ShardedDatabases.dataSource(engine));
        this.engine = engine;
    }

    /**
     * The shard databases are this suite's alone, and ShardingSphere creates no table of a name its
     * rules do not list: the store of its own is the sharded table, emptied on every shard first.
     */
    @Override
    protected io.dupguard.retry.RetryStore storeOfItsOwn() {
        for (String url : ShardedDatabases.shardUrls(ShardedDatabases.yamlBytes(engine))) {
            try (Connection c = DriverManager.getConnection(url, user(), "");
                    java.sql.Statement st = c.createStatement()) {
                st.executeUpdate("DELETE FROM " + JdbcRetryStore.DEFAULT_TABLE);
            } catch (SQLException e) {
                throw new IllegalStateException("cannot empty the retry table of shard " + url, e);
            }
        }
        return store();
    }

    /**
     * As the contract's, except that ids grow per shard: a page is the blocked tasks with the
     * smallest ids, in id order, not the first ones enqueued.
     */
    @Test
    @Override
    public void blockedTasksArePagedCountedAndUnblockedByType() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(store().recordFailure(NewTask.of(type("a"), "p" + i, null), null, "no")
                    .id());
        }
        ids.sort(null);
        List<RetryTask> page1 = store().list(TaskState.BLOCKED, type("a"), TaskPage.first(3));
        assertThat(page1).extracting(RetryTask::id).containsExactlyElementsOf(ids.subList(0, 3));
        List<RetryTask> page2 = store().list(
                        TaskState.BLOCKED, type("a"), new TaskPage(page1.get(2).id(), 3));
        assertThat(page2).extracting(RetryTask::id).containsExactlyElementsOf(ids.subList(3, 5));
        assertThat(machine(1).stats().count(type("a"), TaskState.BLOCKED)).isEqualTo(5);
        assertThat(machine(2).unblockAll(type("a"))).isEqualTo(5);
        assertThat(store().stats().count(type("a"), TaskState.PENDING)).isEqualTo(5);
    }

    /**
     * As the contract's, with the task key derived from the type and dedup key (docs/scaling-sharding.md):
     * the unique dedup index is per shard, so both enqueues must land on one shard.
     */
    @Test
    @Override
    public void aSecondEnqueueWithTheSameDedupKeyReturnsTheFirstTask() {
        Enqueued first = store().enqueue(deduplicated(type("mail"), "a", "order-7"));
        Enqueued second = machine(1).enqueue(deduplicated(type("mail"), "b", "order-7"));
        Enqueued otherType = store().enqueue(deduplicated(type("sms"), "c", "order-7"));
        assertThat(second).isEqualTo(new Enqueued(first.id(), false));
        assertThat(otherType.created()).isTrue();
        assertThat(store().find(first.id()))
                .get()
                .extracting(RetryTask::payloadText)
                .isEqualTo("a");
        Enqueued failed = store().recordFailure(deduplicated(type("mail"), "d", "order-7"), Duration.ZERO, "boom");
        assertThat(failed).isEqualTo(new Enqueued(first.id(), false));
    }

    /** A task whose key is the first 32 hex digits of SHA-256(type, NUL, dedup key). */
    static NewTask deduplicated(String type, String payload, String dedupKey) {
        try {
            byte[] hash = java.security.MessageDigest.getInstance("SHA-256")
                    .digest((type + "\0" + dedupKey).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            String key = java.util.HexFormat.of().formatHex(hash).substring(0, 32);
            return new NewTask(type, payload.getBytes(java.nio.charset.StandardCharsets.UTF_8), dedupKey, key);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Two tasks with the same id, one on each shard (as plain per-shard counters make them), both
     * claimed by one worker: completing one must not complete the other. A write by id alone goes
     * to both shards and marks the other task done without its run.
     */
    @Test
    void aWorkersWriteReachesOnlyItsTasksShardWhenIdsRepeat() throws SQLException {
        long id = 9_000_000_000L + (System.nanoTime() & 0xFFFFFFL);
        String type = type("twin");
        List<String> keys = insertTwins(id, type);
        List<ClaimedTask> twins = new ArrayList<>();
        for (int i = 0; i < 20 && twins.size() < 2; i++) {
            for (ClaimedTask t : store().claim("twin-worker", 10, Duration.ofMinutes(5))) {
                if (t.type().equals(type)) {
                    twins.add(t);
                } else {
                    store().retryLater(t, Duration.ZERO, "not this test's");
                }
            }
        }
        assertThat(twins).extracting(ClaimedTask::id).containsOnly(id).hasSize(2);
        ClaimedTask first = twins.get(0);
        store().succeed(first);
        ClaimedTask other = twins.get(1);
        store().retryLater(other, Duration.ofMinutes(5), "still running until now");
        assertThat(keys).contains(first.taskKey(), other.taskKey());
    }

    /**
     * An operator's cancel or unblock by an id that two shards hand out (their counters without a
     * residue each) names no one task: refused, both tasks left as they were. A unique id is
     * addressed with its task key, so it reaches its shard only.
     */
    @Test
    void anOperatorsActionByAnIdThatRepeatsAcrossShardsIsRefusedAndChangesNothing() throws SQLException {
        long id = 9_100_000_000L + (System.nanoTime() & 0xFFFFFFL);
        List<String> keys = insertTwins(id, type("twin-op"));

        assertThatThrownBy(() -> store().cancel(id))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exists on 2 shards");
        assertThatThrownBy(() -> store().unblock(id)).isInstanceOf(IllegalStateException.class);
        assertThat(statesOf(id)).containsExactly("P", "P");

        long single = store().enqueue(NewTask.of(type("single-op"), "p", null)).id();
        assertThat(store().cancel(single)).isTrue();
        assertThat(store().find(single).orElseThrow().state()).isEqualTo(TaskState.CANCELLED);
        assertThat(keys).hasSize(2);
    }

    /** The state of the task {@code id} on each shard, read past ShardingSphere. */
    private List<String> statesOf(long id) throws SQLException {
        List<String> states = new ArrayList<>();
        for (String url : ShardedDatabases.shardUrls(ShardedDatabases.yamlBytes(engine))) {
            try (Connection c = DriverManager.getConnection(url, user(), "");
                    PreparedStatement ps =
                            c.prepareStatement("SELECT state FROM " + JdbcRetryStore.DEFAULT_TABLE + " WHERE id = ?")) {
                ps.setLong(1, id);
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        states.add(rs.getString(1));
                    }
                }
            }
        }
        return states;
    }

    /** A PENDING task with {@code id} on every shard, each with a task key of its shard; the keys. */
    private List<String> insertTwins(long id, String type) throws SQLException {
        List<String> urls = ShardedDatabases.shardUrls(ShardedDatabases.yamlBytes(engine));
        List<String> keys = new ArrayList<>();
        for (int shard = 0; shard < urls.size(); shard++) {
            String key = keyOnShard(shard, urls.size());
            keys.add(key);
            try (Connection c = DriverManager.getConnection(urls.get(shard), user(), "");
                    PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO " + JdbcRetryStore.DEFAULT_TABLE + " (id, task_type, task_key, state, runs,"
                                    + " run_base, due_at, created_at, updated_at, payload) VALUES (?, ?, ?, 'P', 0,"
                                    + " 0, ?, ?, ?, ?)")) {
                java.sql.Timestamp past = java.sql.Timestamp.valueOf("2000-01-01 00:00:00");
                ps.setLong(1, id);
                ps.setString(2, type);
                ps.setString(3, key);
                ps.setTimestamp(4, past);
                ps.setTimestamp(5, past);
                ps.setTimestamp(6, past);
                ps.setBytes(7, new byte[] {1});
                ps.executeUpdate();
            }
        }
        return keys;
    }

    private String user() {
        return engine == Db.POSTGRESQL ? "postgres" : "root";
    }

    /** A task key that the YAML's algorithm (the key's UTF-8 bytes' Arrays.hashCode mod shards) puts on {@code shard}. */
    static String keyOnShard(int shard, int shards) {
        while (true) {
            String key = UUID.randomUUID().toString().replace("-", "");
            if (ShardedDatabases.shardOf(key, shards) == shard) {
                return key;
            }
        }
    }
}
