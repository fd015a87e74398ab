package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.jdbc.TestDatabases.Db;
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
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Twelve application instances start together against a database where the table does not exist
 * yet, each with its own pool and {@code createSchemaIfMissing(true)}: every first call succeeds
 * (issue 11.7 — on PostgreSQL, concurrent {@code CREATE … IF NOT EXISTS} raced into a unique
 * violation on {@code pg_class}).
 */
class ConcurrentSchemaCreationIT {
    private static final int INSTANCES = 12;

    /** A store kind: its table name for this test, and "build it and make its first call". */
    private record Kind(String table, Function<DataSource, Object> firstCall) {
        @Override
        public String toString() {
            return table;
        }
    }

    private static final List<Kind> KINDS = List.of(
            new Kind("dg_race_idempotency", ds -> JdbcIdempotencyStore.builder(ds)
                    .tableName("dg_race_idempotency")
                    .createSchemaIfMissing(true)
                    .build()
                    .find(IdempotencyKey.of("race", "k"))),
            new Kind("dg_race_locks", ds -> JdbcLockProvider.builder(ds)
                    .tableName("dg_race_locks")
                    .createSchemaIfMissing(true)
                    .build()
                    .dialect()),
            new Kind("dg_race_tokens", ds -> JdbcSubmissionTokens.create(ds, "dg_race_tokens", true)
                    .issue("race", "subject", Duration.ofMinutes(1))),
            new Kind("dg_race_throttle", ds -> JdbcSubmitThrottle.create(ds, "dg_race_throttle", true)
                    .tryAcquire("race", "subject", Duration.ofMinutes(1))),
            new Kind("dg_race_prepared", ds -> JdbcPreparedSubmissions.create(ds, "dg_race_prepared", true)
                    .prepare("subject")));

    static Stream<Arguments> cases() {
        return Stream.of(Db.values()).flatMap(db -> KINDS.stream().map(kind -> Arguments.of(db, kind)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void twelveInstancesCreatingTheSchemaAtOnceAllStart(Db db, Kind kind) throws Exception {
        List<HikariDataSource> pools = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(INSTANCES);
        try {
            for (int i = 0; i < INSTANCES; i++) {
                pools.add(TestDatabases.pool(db, 1));
            }
            drop(pools.get(0), kind.table());
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Object>> calls = new ArrayList<>();
            for (HikariDataSource pool : pools) {
                calls.add(threads.submit(() -> {
                    start.await();
                    return kind.firstCall().apply(pool);
                }));
            }
            start.countDown();
            for (Future<Object> call : calls) {
                call.get(60, TimeUnit.SECONDS); // throws if that instance failed to start
            }
        } finally {
            threads.shutdownNow();
            if (!pools.isEmpty()) {
                drop(pools.get(0), kind.table());
            }
            pools.forEach(HikariDataSource::close);
        }
        assertThat(pools).hasSize(INSTANCES);
    }

    private static void drop(DataSource ds, String table) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
        }
    }
}
