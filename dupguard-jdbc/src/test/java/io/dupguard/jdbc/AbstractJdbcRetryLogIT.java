package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.jdbc.TestDatabases.Servers;
import io.dupguard.retry.NewTask;
import io.dupguard.retry.NonRetryableException;
import io.dupguard.retry.RetryConfig;
import io.dupguard.retry.RetryLog;
import io.dupguard.retry.RetrySchedule;
import io.dupguard.retry.RetryStats;
import io.dupguard.retry.TaskContext;
import io.dupguard.retry.TaskHandler;
import io.dupguard.retry.TaskOptions;
import io.dupguard.retry.TaskState;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The retry log under load on one database: many worker pools on separate connection pools
 * (separate machines) drain one table, and every handler's effect is a row written in the same
 * transaction as the task's completion, so the database itself counts effects.
 */
abstract class AbstractJdbcRetryLogIT {
    static final String TABLE = "retry_stress";
    static final String EFFECTS = "retry_stress_effects";
    static final String CREATE_EFFECTS =
            "CREATE TABLE IF NOT EXISTS " + EFFECTS + " (task_id BIGINT NOT NULL, attempt INT NOT NULL)";

    final Db db;
    private final Servers servers;

    AbstractJdbcRetryLogIT(Db db) {
        this(Servers.one(db));
    }

    /** Worker pool {@code i} on {@code servers}' server {@code i} (all on one, or a node each). */
    AbstractJdbcRetryLogIT(Servers servers) {
        this.db = servers.db();
        this.servers = servers;
    }

    /** Tasks in the stress test. */
    int stressTasks() {
        return 20_000;
    }

    /**
     * Empties the task and effect tables; dropped and created again on one server, emptied through
     * ShardingSphere (ShardedDatabases creates them on the shards: no DDL through the proxy).
     */
    void resetTables(DataSource ds) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            if (servers.sharded()) {
                st.execute("DELETE FROM " + TABLE);
                st.execute("DELETE FROM " + EFFECTS);
                return;
            }
            st.execute("DROP TABLE IF EXISTS " + TABLE);
            st.execute("DROP TABLE IF EXISTS " + EFFECTS);
            st.execute(CREATE_EFFECTS);
        }
    }

    static JdbcRetryStore store(DataSource ds) {
        return JdbcRetryStore.builder(ds)
                .tableName(TABLE)
                .createSchemaIfMissing(true)
                .build();
    }

    /** Writes the effect and completes the task in one transaction on the handler's own pool. */
    static TaskHandler effectHandler(DataSource ds, double permanent, double transientFailure) {
        return task -> {
            double r = ThreadLocalRandom.current().nextDouble();
            if (r < permanent) {
                throw new NonRetryableException("card rejected");
            }
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try {
                    writeEffect(c, task);
                    task.completeInTransaction(c);
                    if (r < permanent + transientFailure) {
                        // Fails after the effect and the completion were written: both roll back.
                        throw new IOException("downstream timeout");
                    }
                    c.commit();
                } catch (Exception e) {
                    c.rollback();
                    throw e;
                }
            }
        };
    }

    static void writeEffect(Connection c, TaskContext task) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO " + EFFECTS + " (task_id, attempt) VALUES (?, ?)")) {
            ps.setLong(1, task.taskId().orElseThrow());
            ps.setInt(2, task.attempt());
            ps.executeUpdate();
        }
    }

    static long scalar(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The first column of every row of {@code sql}, as a set. */
    static java.util.Set<Long> ids(DataSource ds, String sql) throws SQLException {
        java.util.Set<Long> ids = new java.util.HashSet<>();
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    @Test
    void eightPoolsDrainTwentyThousandFlakyTasksWithOneEffectEach() throws Exception {
        int n = stressTasks();
        int machines = 8;
        List<DataSource> pools = new ArrayList<>();
        List<RetryLog> logs = new ArrayList<>();
        RetrySchedule fast = RetrySchedule.steppedBuilder()
                .steps(Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(50))
                .maxAttempts(8)
                .build();
        try {
            for (int i = 0; i < machines; i++) {
                pools.add(servers.machine(i, 4));
            }
            resetTables(pools.get(0));
            JdbcRetryStore producer = store(pools.get(0));
            try (Connection c = pools.get(0).getConnection()) {
                c.setAutoCommit(false);
                for (int i = 0; i < n; i++) {
                    producer.enqueue(c, NewTask.of("charge", "order-" + i, "order-" + i));
                    if (i % 1000 == 999) {
                        c.commit();
                    }
                }
                c.commit();
            }
            for (DataSource pool : pools) {
                logs.add(RetryLog.builder(store(pool))
                        .handler(
                                "charge",
                                effectHandler(pool, 0.02, 0.30),
                                TaskOptions.custom().schedule(fast).build())
                        .config(RetryConfig.custom()
                                .workers(3)
                                .pollers(1 + logs.size() % 2)
                                .batchSize(32)
                                .pollInterval(Duration.ofMillis(100))
                                .alertSink(a -> {})
                                .build())
                        .build()
                        .start());
            }
            JdbcRetryStore observer = store(pools.get(0));
            await().atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        RetryStats s = observer.stats();
                        return s.count(TaskState.SUCCEEDED) + s.count(TaskState.BLOCKED) == n;
                    });
            logs.forEach(RetryLog::close);

            DataSource ds = pools.get(0);
            RetryStats s = observer.stats();
            assertThat(s.count(TaskState.PENDING) + s.count(TaskState.RUNNING)).isZero();
            long succeeded = s.count(TaskState.SUCCEEDED);
            assertThat(succeeded).isGreaterThan(n * 9L / 10);
            assertThat(s.count(TaskState.BLOCKED)).isGreaterThan(0);
            assertThat(scalar(ds, "SELECT COUNT(*) FROM " + EFFECTS))
                    .as("committed effects")
                    .isEqualTo(succeeded);
            assertThat(scalar(ds, "SELECT COUNT(DISTINCT task_id) FROM " + EFFECTS))
                    .isEqualTo(succeeded);
            // Two reads, no join: through ShardingSphere the tables are a sharded and a single one.
            assertThat(ids(ds, "SELECT task_id FROM " + EFFECTS))
                    .as("every effect belongs to a SUCCEEDED task")
                    .isEqualTo(ids(ds, "SELECT id FROM " + TABLE + " WHERE state = 'S'"));
            assertThat(scalar(ds, "SELECT COUNT(*) FROM " + TABLE + " WHERE runs > 1"))
                    .as("retries happened")
                    .isGreaterThan(n / 10);
        } finally {
            logs.forEach(RetryLog::close);
            pools.forEach(TestDatabases::close);
        }
    }
}
