package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.retry.NewTask;
import io.dupguard.retry.RetryLog;
import io.dupguard.test.ExpectedWarnings;
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

    /** Started while the database is down: start() does not need it, polling backs off and resumes. */
    @Test
    @ExpectedWarnings("polls and the notification listener fail until the proxy is up")
    void aLogStartedWhileTheDatabaseIsDownRunsTasksOnceItIsUp() throws Exception {
        int port = Integer.parseInt(TestDatabases.url(db).replaceAll(".*//[^:/]+:(\\d+)/.*", "$1"));
        CountDownLatch ran = new CountDownLatch(1);
        try (TcpProxy proxy = new TcpProxy(port);
                HikariDataSource proxied = proxied(proxy);
                HikariDataSource other = TestDatabases.pool(db, 2)) {
            proxy.down();
            RetryLog log = RetryLog.builder(JdbcRetryStore.builder(proxied)
                            .tableName(TABLE)
                            .createSchemaIfMissing(true)
                            .build())
                    .handler("mail", t -> ran.countDown())
                    .config(quick().pollInterval(Duration.ofHours(1)).build())
                    .build();
            try (log) {
                log.start(); // does not need the database
                proxy.up();
                store(other).enqueue(NewTask.of("mail", "hello", null));
                assertThat(ran.await(20, TimeUnit.SECONDS)).isTrue();
            }
        }
    }
}
