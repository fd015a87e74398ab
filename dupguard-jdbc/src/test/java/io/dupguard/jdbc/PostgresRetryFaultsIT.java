package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.retry.NewTask;
import io.dupguard.retry.RetryLog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PostgresRetryFaultsIT extends AbstractJdbcRetryFaultsIT {
    PostgresRetryFaultsIT() {
        super(TestDatabases.Db.POSTGRESQL);
    }

    @Override
    String backendIdQuery() {
        return "SELECT pg_backend_pid()";
    }

    @Override
    void terminate(Connection admin, long backendId) throws SQLException {
        try (PreparedStatement ps = admin.prepareStatement("SELECT pg_terminate_backend(?)")) {
            ps.setInt(1, (int) backendId);
            ps.executeQuery().close();
        }
    }

    /** Another machine's enqueue reaches a worker that polls once an hour: LISTEN/NOTIFY. */
    @Test
    void aTaskEnqueuedByAnotherProcessWakesASleepingWorker() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        try (HikariDataSource other = TestDatabases.pool(db, 2);
                RetryLog log = RetryLog.builder(adminStore)
                        .handler("mail", t -> ran.countDown())
                        .config(quick().pollInterval(Duration.ofHours(1)).build())
                        .build()
                        .start()) {
            store(other).enqueue(NewTask.of("mail", "hello", null));
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        }
    }
}
