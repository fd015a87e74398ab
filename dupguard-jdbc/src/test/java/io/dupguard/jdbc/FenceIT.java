package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.jdbc.TestDatabases.Servers;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A stale holder's fenced write is rejected by the database row itself (guarantee L5). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FenceIT {
    private static final Fence ACCOUNTS = Fence.on("dupguard_fence_accounts", "id", "fence");
    static final String CREATE_ACCOUNTS = "CREATE TABLE IF NOT EXISTS dupguard_fence_accounts (id VARCHAR(64)"
            + " PRIMARY KEY, balance BIGINT NOT NULL, note VARCHAR(100), fence BIGINT)";

    private String id;
    private DataSource machineA;
    private DataSource machineB;

    /** Where the two machines connect: each single server. */
    Stream<Servers> servers() {
        return Stream.of(Db.values()).map(Servers::one);
    }

    private void setUp(Servers servers, Long initialFence) throws SQLException {
        id = "acct-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
        machineA = servers.machine(0, 4);
        machineB = servers.machine(1, 4);
        try (Connection c = machineA.getConnection();
                Statement st = c.createStatement()) {
            st.execute(CREATE_ACCOUNTS);
            try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO dupguard_fence_accounts (id, balance, fence) VALUES (?, 100, ?)")) {
                ps.setString(1, id);
                ps.setObject(2, initialFence);
                ps.executeUpdate();
            }
        }
    }

    @AfterEach
    void closePools() {
        TestDatabases.close(machineA);
        TestDatabases.close(machineB);
    }

    private boolean credit(DataSource ds, long token, long balance, String note) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return ACCOUNTS.update(c, id, token, "balance = ?, note = ?", balance, note);
        }
    }

    private String account() throws SQLException {
        try (Connection c = machineA.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("SELECT balance, note, fence FROM dupguard_fence_accounts WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1) + "/" + rs.getString(2) + "/" + rs.getObject(3);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("servers")
    void pausedHoldersWriteIsRejectedAfterItsSuccessorWrote(Servers servers) throws SQLException {
        setUp(servers, 0L);
        JdbcLockProvider locksA = TestDatabases.locks(machineA);
        JdbcLockProvider locksB = TestDatabases.locks(machineB);
        String lock = "account:" + id;

        Lease paused = locksA.tryAcquire(
                        lock,
                        LockOptions.custom().leaseTime(Duration.ofMillis(400)).build())
                .orElseThrow();
        // A stalls (GC pause) past its lease; B gets the lock once A's lease has expired.
        long successorToken;
        try (Lease successor = locksB.acquire(
                lock, LockOptions.custom().waitTime(Duration.ofSeconds(20)).build())) {
            successorToken = successor.fencingToken();
            assertThat(successorToken).isGreaterThan(paused.fencingToken());
            assertThat(credit(machineB, successorToken, 150, "B first")).isTrue();
            assertThat(credit(machineB, successorToken, 170, "B again")).isTrue(); // same holder, same token
        }
        // A wakes up and writes with its old token: the row refuses it.
        assertThat(credit(machineA, paused.fencingToken(), 999, "A stale")).isFalse();
        assertThat(account()).isEqualTo("170/B again/" + successorToken);
        paused.close();
    }

    @ParameterizedTest
    @MethodSource("servers")
    void newerTokenWinsAndARowWithoutAFenceYetIsWritable(Servers servers) throws SQLException {
        setUp(servers, null);
        assertThat(credit(machineA, 7, 110, "first")).isTrue();
        assertThat(credit(machineA, 9, 120, "newer")).isTrue();
        assertThat(credit(machineA, 8, 130, "older")).isFalse();
        assertThat(account()).isEqualTo("120/newer/9");
    }

    @ParameterizedTest
    @MethodSource("servers")
    void fencedWriteIsPartOfTheCallersTransaction(Servers servers) throws SQLException {
        setUp(servers, 0L);
        try (Connection c = machineA.getConnection()) {
            c.setAutoCommit(false);
            assertThat(ACCOUNTS.update(c, id, 5, "balance = ?", 500)).isTrue();
            c.rollback();
            c.setAutoCommit(true);
        }
        assertThat(account()).isEqualTo("100/null/0");
        try (Connection c = machineA.getConnection()) {
            assertThat(ACCOUNTS.update(c, "no-such-" + id, 5, "balance = ?", 500))
                    .isFalse();
        }
    }

    @Test
    void rejectsIdentifiersThatAreNotPlainAndBadArguments() throws SQLException {
        assertThatThrownBy(() -> Fence.on("accounts; DROP TABLE x", "id", "fence"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table");
        assertThatThrownBy(() -> Fence.on("accounts", "id = id OR 1", "fence")).hasMessageContaining("idColumn");
        assertThatThrownBy(() -> Fence.on("accounts", "id", "")).hasMessageContaining("fenceColumn");
        try (HikariDataSource ds = TestDatabases.pool(Db.H2, 1);
                Connection c = ds.getConnection()) {
            assertThatThrownBy(() -> ACCOUNTS.update(c, "x", 0, "balance = ?", 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("token");
            assertThatThrownBy(() -> ACCOUNTS.update(c, "x", 1, " ")).hasMessageContaining("setClause");
        }
    }
}
