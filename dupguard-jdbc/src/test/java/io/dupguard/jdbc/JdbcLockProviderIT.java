package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.StoreUnavailableException;
import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.test.ExpectedWarnings;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** JDBC-only lock behaviour: the lock row, restarts, outages, schema, and the naive myLock table's flaws. */
class JdbcLockProviderIT {
    private static final Duration SHORT = Duration.ofMillis(400);
    private static final LockOptions NO_WAIT =
            LockOptions.custom().waitTime(Duration.ZERO).build();
    private static final LockOptions WAIT =
            LockOptions.custom().waitTime(Duration.ofSeconds(20)).build();

    private final String prefix =
            "jl-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + "-";

    private String name(String n) {
        return prefix + n;
    }

    private static long acquireAndRelease(LockProvider locks, String name) {
        try (Lease lease = locks.tryAcquire(name).orElseThrow()) {
            return lease.fencingToken();
        }
    }

    /** The lock row as {@code owner/fence}, read with plain SQL. */
    private static String row(HikariDataSource ds, Db db, String name) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT owner, fence FROM dupguard_locks WHERE name = ?")) {
            if (db == Db.MARIADB) {
                ps.setBytes(1, name.getBytes(StandardCharsets.UTF_8));
            } else {
                ps.setString(1, name);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) + "/" + rs.getLong(2) : "no row";
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void releaseKeepsTheRowAndTheFenceKeepsCountingAfterARestart(Db db) throws SQLException {
        String name = name("restart");
        try (HikariDataSource ds = TestDatabases.pool(db, 2)) {
            JdbcLockProvider locks = TestDatabases.locks(ds);
            assertThat(acquireAndRelease(locks, name)).isEqualTo(1);
            assertThat(acquireAndRelease(locks, name)).isEqualTo(2);
            assertThat(row(ds, db, name)).isEqualTo("null/2");
        }
        try (HikariDataSource restarted = TestDatabases.pool(db, 2)) {
            assertThat(acquireAndRelease(TestDatabases.locks(restarted), name)).isEqualTo(3);
        }
    }

    /**
     * A re-used, free name is taken in one statement on every database; on MySQL/MariaDB that is a
     * plain guarded UPDATE (cheaper on InnoDB than the upsert, which new and held names still use).
     */
    @ParameterizedTest
    @EnumSource(Db.class)
    void aFreeReusedNameIsTakenInOneStatement(Db db) throws Exception {
        String name = name("reused");
        try (HikariDataSource ds = TestDatabases.pool(db, 2)) {
            List<String> calls = Collections.synchronizedList(new ArrayList<>());
            JdbcLockProvider locks =
                    JdbcLockProvider.builder(CallRecorder.wrap(ds, calls)).build();
            long first;
            try (Lease lease = locks.tryAcquire(name).orElseThrow()) {
                first = lease.fencingToken();
            }
            calls.clear();
            Lease again = locks.tryAcquire(name).orElseThrow();
            try {
                assertThat(again.fencingToken()).isEqualTo(first + 1);
                List<String> prepared = calls.stream()
                        .filter(m -> m.startsWith("prepareStatement"))
                        .toList();
                assertThat(prepared).hasSize(1);
                if (db == Db.MARIADB) {
                    assertThat(prepared.get(0)).contains("UPDATE dupguard_locks SET owner = ?");
                }
            } finally {
                again.close();
            }
            assertThat(row(ds, db, name)).isEqualTo("null/" + (first + 1));
        }
    }

    /**
     * A holder that closes while another thread of this JVM waits moves the row to the waiter in
     * one statement (owner, lease and the next fence), instead of a release and an acquisition.
     */
    @ParameterizedTest
    @EnumSource(Db.class)
    void aContendedLockPassesToTheNextLocalWaiterInOneStatement(Db db) throws Exception {
        String name = name("handoff");
        try (HikariDataSource ds = TestDatabases.pool(db, 4)) {
            TestDatabases.locks(ds).tryAcquire(name("schema")).orElseThrow().close();
            List<String> calls = Collections.synchronizedList(new ArrayList<>());
            JdbcLockProvider locks =
                    JdbcLockProvider.builder(CallRecorder.wrap(ds, calls)).build();
            Lease first = locks.acquire(name, WAIT);
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                AtomicReference<Thread> waiter = new AtomicReference<>();
                Future<Lease> second = pool.submit(() -> {
                    waiter.set(Thread.currentThread());
                    return locks.acquire(name, WAIT);
                });
                Awaitility.await()
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> waiter.get() != null && waiter.get().getState() == Thread.State.TIMED_WAITING);
                calls.clear();

                first.close();
                Lease next = second.get(20, TimeUnit.SECONDS);

                assertThat(next.fencingToken()).isEqualTo(first.fencingToken() + 1);
                assertThat(next.isHeld()).isTrue();
                assertThat(calls)
                        .filteredOn(m -> m.startsWith("prepareStatement"))
                        .hasSize(2) // the hand-over, and isHeld()
                        .first()
                        .asString()
                        .contains("UPDATE dupguard_locks SET owner = ?");
                assertThat(row(ds, db, name)).doesNotStartWith("null/");
                next.close();
                assertThat(row(ds, db, name)).isEqualTo("null/" + next.fencingToken());
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /**
     * Four threads of one JVM take turns on a lock without pause; a provider on another pool (another
     * machine) still gets it, because the direct hand-offs stop every few turns for a release.
     */
    @ParameterizedTest
    @EnumSource(Db.class)
    void anotherMachineGetsALockThatLocalThreadsKeepPassingOn(Db db) throws Exception {
        String name = name("streak");
        try (HikariDataSource here = TestDatabases.pool(db, 4);
                HikariDataSource there = TestDatabases.pool(db, 1)) {
            JdbcLockProvider local = TestDatabases.locks(here);
            JdbcLockProvider remote = TestDatabases.locks(there);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger localTurns = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> loops = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    loops.add(pool.submit(() -> {
                        while (!stop.get()) {
                            try (Lease lease = local.acquire(name, WAIT)) {
                                localTurns.incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> localTurns.get() > 50);

                try (Lease theirs = remote.acquire(name, WAIT)) {
                    assertThat(theirs.isHeld()).isTrue();
                }
                stop.set(true);
                for (Future<?> loop : loops) {
                    loop.get(20, TimeUnit.SECONDS);
                }
            } finally {
                stop.set(true);
                pool.shutdownNow();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    @ExpectedWarnings("the crashed holder's watchdog logs that renewing through its closed pool failed")
    void abandonedLockFreesAtExpiryWithoutARelease(Db db) {
        // Seed flaw 1: the myLock row had no expiry, so a holder that died kept it forever.
        HikariDataSource crashed = TestDatabases.pool(db, 2);
        JdbcLockProvider dying = TestDatabases.locks(crashed);
        dying.tryAcquire(name("crash"), LockOptions.custom().leaseTime(SHORT).build())
                .orElseThrow();
        dying.tryAcquire(
                        name("crash-watchdog"),
                        LockOptions.custom().watchdog(SHORT).build())
                .orElseThrow();
        crashed.close(); // the process is gone: no unlock, no more renewals

        try (HikariDataSource ds = TestDatabases.pool(db, 2)) {
            JdbcLockProvider survivor = TestDatabases.locks(ds);
            try (Lease fixed = survivor.acquire(name("crash"), WAIT);
                    Lease renewed = survivor.acquire(name("crash-watchdog"), WAIT)) {
                assertThat(fixed.fencingToken()).isEqualTo(2);
                assertThat(renewed.fencingToken()).isEqualTo(2);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void sameOwnerReentersAndOnlyTheOutermostCloseReleasesTheRow(Db db) throws SQLException {
        // Seed flaw 2: myLock could not tell the holder from a stranger, so re-entry deadlocked.
        try (HikariDataSource ds = TestDatabases.pool(db, 4);
                HikariDataSource other = TestDatabases.pool(db, 2)) {
            JdbcLockProvider locks = TestDatabases.locks(ds);
            Lease outer = locks.acquire(name("re"), NO_WAIT);
            Lease inner = locks.acquire(name("re"), NO_WAIT);
            assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken()).isEqualTo(1);

            inner.close();
            assertThat(row(ds, db, name("re"))).doesNotStartWith("null/");
            assertThat(TestDatabases.locks(other).tryAcquire(name("re"))).isEmpty();
            outer.close();
            assertThat(row(ds, db, name("re"))).isEqualTo("null/1");
        }
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void namesAreComparedByteForByte(Db db) {
        try (HikariDataSource a = TestDatabases.pool(db, 2);
                HikariDataSource b = TestDatabases.pool(db, 2)) {
            JdbcLockProvider holder = TestDatabases.locks(a);
            JdbcLockProvider other = TestDatabases.locks(b);
            try (Lease held = holder.tryAcquire(name("Order-A")).orElseThrow()) {
                // Case folding or trailing-space padding (MariaDB's *_bin collations) would merge these.
                for (String similar : new String[] {"order-a", "Order-A ", "Order-Å"}) {
                    assertThat(other.tryAcquire(name(similar))).hasValueSatisfying(Lease::close);
                }
                assertThat(other.tryAcquire(name("Order-A"))).isEmpty();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void theLongestNameFitsEvenInMultiByteCharacters(Db db) {
        String longest = prefix + "界".repeat(JdbcLockProvider.MAX_NAME_LENGTH - prefix.length());
        try (HikariDataSource ds = TestDatabases.pool(db, 2)) {
            JdbcLockProvider locks = TestDatabases.locks(ds);
            assertThat(acquireAndRelease(locks, longest)).isEqualTo(1);
            assertThat(acquireAndRelease(locks, longest)).isEqualTo(2);
        }
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    @ExpectedWarnings("HikariCP warns when it closes a pool that never reached its database")
    void unreachableDatabaseIsAStoreErrorNeverFreeOrTaken(Db db) {
        try (HikariDataSource down = TestDatabases.unreachable(db)) {
            JdbcLockProvider locks = TestDatabases.locks(down); // building needs no database
            for (int i = 0; i < 2; i++) { // the failed attempt left no local state behind
                assertThatThrownBy(() -> locks.tryAcquire(name("down")))
                        .isInstanceOf(StoreUnavailableException.class)
                        .hasMessageContaining("lock '" + name("down") + "' failed");
            }
            assertThatThrownBy(() -> locks.acquire(name("down"), WAIT)).isInstanceOf(StoreUnavailableException.class);
            assertThatThrownBy(locks::dialect).isInstanceOf(StoreUnavailableException.class);

            SqlDialect dialect = db == Db.MARIADB ? SqlDialect.MYSQL : SqlDialect.valueOf(db.name());
            JdbcLockProvider named =
                    JdbcLockProvider.builder(down).dialect(dialect).build();
            assertThatThrownBy(() -> named.tryAcquire(name("down")))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageStartingWith("jdbc(" + dialect.id() + ") unavailable");
        }
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    @ExpectedWarnings("close() logs that the release failed and the lease will expire")
    void holderWhoseDatabaseGoesAwayGetsAStoreErrorAndCloseDoesNotThrow(Db db) {
        HikariDataSource ds = TestDatabases.pool(db, 2);
        Lease lease = TestDatabases.locks(ds).tryAcquire(name("gone")).orElseThrow();
        ds.close();

        assertThatThrownBy(lease::isHeld).isInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> lease.extend(SHORT)).isInstanceOf(StoreUnavailableException.class);
        lease.close(); // logged; the lease expires on its own
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void missingTableIsAClearStoreError(Db db) {
        try (HikariDataSource ds = TestDatabases.pool(db, 2)) {
            JdbcLockProvider locks = JdbcLockProvider.builder(ds)
                    .tableName("dupguard_no_such_locks")
                    .build();
            assertThatThrownBy(() -> locks.tryAcquire(name("t")))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("SQLState");
        }
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void providersCreatingTheSameTableAtOnceAllSucceed(Db db) throws Exception {
        String table = "dupguard_locks_race";
        List<HikariDataSource> pools = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            for (int i = 0; i < 4; i++) {
                pools.add(TestDatabases.pool(db, 1));
            }
            try (Connection c = pools.get(0).getConnection();
                    Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + table);
            }
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Optional<Lease>>> results = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                JdbcLockProvider locks = JdbcLockProvider.builder(pools.get(i))
                        .tableName(table)
                        .createSchemaIfMissing(true)
                        .build();
                String lockName = name("race-" + i);
                results.add(threads.submit(() -> {
                    start.await();
                    return locks.tryAcquire(lockName);
                }));
            }
            start.countDown();
            for (Future<Optional<Lease>> r : results) {
                assertThat(r.get(30, TimeUnit.SECONDS)).hasValueSatisfying(Lease::close);
            }
        } finally {
            threads.shutdownNow();
            pools.forEach(HikariDataSource::close);
        }
    }

    @Test
    void eachStoreCreatesOnlyItsOwnTable() throws SQLException {
        org.h2.jdbcx.JdbcDataSource ds = new org.h2.jdbcx.JdbcDataSource();
        ds.setURL("jdbc:h2:mem:" + prefix + "schema;DB_CLOSE_DELAY=-1");
        JdbcLockProvider.builder(ds)
                .tableName("app_locks")
                .createSchemaIfMissing(true)
                .build()
                .tryAcquire(name("schema"))
                .orElseThrow()
                .close();
        assertThat(tables(ds)).containsExactly("APP_LOCKS");

        TestDatabases.store(ds).find(io.dupguard.idempotency.IdempotencyKey.of("s", "k"));
        assertThat(tables(ds)).containsExactlyInAnyOrder("APP_LOCKS", "DUPGUARD_IDEMPOTENCY");
    }

    private static List<String> tables(javax.sql.DataSource ds) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection();
                ResultSet rs = c.createStatement()
                        .executeQuery(
                                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'PUBLIC'")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(Db.class)
    void detectsTheDialect(Db db) {
        try (HikariDataSource ds = TestDatabases.pool(db, 1)) {
            assertThat(TestDatabases.locks(ds).dialect())
                    .isEqualTo(db == Db.MARIADB ? SqlDialect.MYSQL : SqlDialect.valueOf(db.name()));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1table", "locks; DROP TABLE x", "a-b", "schema.table"})
    void rejectsTableNamesThatAreNotPlainIdentifiers(String bad) {
        try (HikariDataSource ds = TestDatabases.pool(Db.H2, 1)) {
            assertThatThrownBy(() -> JdbcLockProvider.builder(ds).tableName(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tableName");
        }
        assertThatThrownBy(() -> JdbcLockProvider.builder(null)).isInstanceOf(NullPointerException.class);
    }
}
