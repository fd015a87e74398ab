package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.TestDatabases.Db;
import io.dupguard.jdbc.TestDatabases.Servers;
import io.dupguard.lock.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two JDBC behaviours of ShardingSphere-JDBC 5.5.2 that dupguard's statements avoid
 * (docs/scaling-sharding.md, "What dupguard does differently through ShardingSphere"), each next to the
 * same calls on one database, where they work.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShardingSphereBehaviourIT {
    Stream<Servers> shardings() {
        return Servers.shardings();
    }

    /**
     * ShardingSphere data sources of this class's own: the calls below can leave a physical
     * connection whose next answer the MariaDB driver cannot decode (an {@code
     * ArrayIndexOutOfBoundsException} in the next test that used the shared data source), so they
     * must not serve the other tests.
     */
    private final Map<Db, DataSource> own = new EnumMap<>(Db.class);

    private Connection connection(Db engine) throws SQLException {
        DataSource ds = own.get(engine);
        if (ds == null) {
            ds = ShardedDatabases.ownDataSource(engine);
            own.put(engine, ds);
        }
        return ds.getConnection();
    }

    @AfterAll
    void close() throws Exception {
        for (DataSource ds : own.values()) {
            ((AutoCloseable) ds).close();
        }
    }

    private static final String COUNT_LOCK =
            "SELECT COUNT(*) FROM " + JdbcLockProvider.DEFAULT_TABLE + " WHERE name = ?";

    /** The count of a lock's rows, read by {@code ps} (its parameter bound before this call, or not). */
    private static int count(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @ParameterizedTest
    @MethodSource("shardings")
    void aPreparedStatementExecutedAgainWithoutBindingAgainFails(Servers sharding) throws SQLException {
        String name = "behaviour-" + UUID.randomUUID();
        try (HikariDataSource pool = TestDatabases.pool(sharding.db(), 2);
                Connection one = pool.getConnection()) {
            // the lock table, on one database too
            TestDatabases.locks(pool).tryAcquire(name).ifPresent(Lease::close);
            try (PreparedStatement ps = one.prepareStatement(COUNT_LOCK)) {
                ps.setString(1, name);
                int first = count(ps);
                assertThat(count(ps))
                        .as("one database, the same parameters again")
                        .isEqualTo(first);
            }
        }
        try (Connection c = connection(sharding.db());
                PreparedStatement ps = c.prepareStatement(COUNT_LOCK)) {
            ps.setString(1, name);
            assertThat(count(ps)).isZero();
            assertThatThrownBy(() -> count(ps))
                    .as("through ShardingSphere, the same parameters again")
                    .isInstanceOf(Exception.class);
        }
    }

    /** MariaDB {@code INSERT … RETURNING}: {@code execute()} then {@code getResultSet()}, and {@code executeQuery()}. */
    @Test
    void executeThenGetResultSetAnswersNullWhereExecuteQueryReturnsTheRows() throws SQLException {
        String insert = "INSERT INTO dupguard_test_orders (order_no, scope) VALUES (?, 'behaviour') RETURNING order_no";
        try (HikariDataSource pool = TestDatabases.pool(Db.MARIADB, 1);
                Connection one = pool.getConnection()) {
            TestOrders.createTable(one);
            try (PreparedStatement ps = one.prepareStatement(insert)) {
                ps.setString(1, "one-" + UUID.randomUUID());
                assertThat(ps.execute()).isTrue();
                assertThat(ps.getResultSet()).as("one database").isNotNull();
            }
        }
        try (Connection c = connection(Db.MARIADB)) {
            try (PreparedStatement ps = c.prepareStatement(insert)) {
                ps.setString(1, "execute-" + UUID.randomUUID());
                ps.execute();
                assertThat(ps.getResultSet())
                        .as("through ShardingSphere: execute()")
                        .isNull();
            }
            String orderNo = "query-" + UUID.randomUUID();
            try (PreparedStatement ps = c.prepareStatement(insert)) {
                ps.setString(1, orderNo);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next())
                            .as("through ShardingSphere: executeQuery()")
                            .isTrue();
                    assertThat(rs.getString(1)).isEqualTo(orderNo);
                }
            }
        }
    }
}
