package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.ReadOnlyStoreException;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.test.ExpectedWarnings;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * K7 on the MariaDB primary and its GTID binlog replica ({@code scripts/services}: 3316 and 3317, or
 * {@code -Ddupguard.mariadb.replicas=primary-host:port,replica-host:port}). The refusals run as root,
 * whom {@code read_only} does not stop; the write error comes from {@code dupguard}, whom it does.
 */
@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class MariaDbReadOnlyReplicaIT extends AbstractReadOnlyReplicaIT {
    private static final String[] HOSTS = System.getProperty(
                    "dupguard.mariadb.replicas", "127.0.0.1:3316,127.0.0.1:3317")
            .split(",");

    MariaDbReadOnlyReplicaIT() {
        super(url("", HOSTS[0], "root"), url("", HOSTS[1], "root"), url("", HOSTS[1], "dupguard"), "@@read_only = 1");
    }

    private static String url(String mode, String hosts, String user) {
        return "jdbc:mariadb:" + mode + "//" + hosts + "/test?useServerPrepStmts=true&user=" + user;
    }

    @Override
    String readOnlySession() {
        return "SET SESSION TRANSACTION READ ONLY";
    }

    @Override
    String readWriteSession() {
        return "SET SESSION TRANSACTION READ WRITE";
    }

    @Test
    void aReplicationUrlWritesToThePrimaryItNamesFirst() {
        assertClaimsOn(url("replication:", HOSTS[0] + "," + HOSTS[1], "root"));
    }

    @Test
    void aSequentialUrlThatNamesTheReplicaFirstIsRefused() {
        assertRefusedOn(url("sequential:", HOSTS[1] + "," + HOSTS[0], "root"));
    }

    /**
     * A failover as an orchestrator makes it: the primary is demoted with {@code read_only = 1} while
     * the pool's connection to it stays open, and the address now leads to the new primary, which has
     * the claim (copied here, as replication would have). The completion, refused as read-only on the
     * open connection, is retried within the lease on a new connection — the refused one is dropped —
     * and lands on the new primary: the work ran once and its result is stored. The demoted server is
     * the replicated pair's primary (3316), as {@code dupguard}, whom {@code read_only} stops; it is
     * made writable again in a finally block. The new primary is the server on 3306.
     */
    @Test
    @ExpectedWarnings("the completion refused as read-only is retried, with a warning")
    void aCompletionRefusedAsReadOnlyAfterADemotionIsRetriedOnANewConnectionToTheNewPrimary() throws Exception {
        String table = "dg_demoted_" + Long.toString(System.nanoTime(), 36);
        String oldPrimary = url("", HOSTS[0], "dupguard");
        String newPrimary = System.getProperty("dupguard.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test?user=root");
        AtomicReference<String> address = new AtomicReference<>(oldPrimary);
        AtomicInteger opened = new AtomicInteger();
        HikariConfig config = new HikariConfig();
        config.setDataSource(following(address, opened));
        config.setMaximumPoolSize(1);
        AtomicInteger runs = new AtomicInteger();
        try (HikariDataSource pool = new HikariDataSource(config)) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool)
                    .tableName(table)
                    .createSchemaIfMissing(true)
                    .build();
            Idempotency idempotency = Idempotency.of(
                    store,
                    IdempotencyConfig.custom()
                            .inFlightLease(Duration.ofSeconds(6))
                            .build());
            IdempotencyKey key = IdempotencyKey.of("demoted", "order-1");
            String result = idempotency
                    .execute(key, Fingerprint.none(), String.class, () -> {
                        runs.incrementAndGet();
                        copyTable(primary, table, newPrimary); // the new primary has the claim
                        setReadOnly(primary, 1); // demoted, with the pool's connection open
                        address.set(newPrimary);
                        return "charged";
                    })
                    .value();
            assertThat(result).isEqualTo("charged");
            assertThat(opened).as("connections the pool opened").hasValue(2);
            try (Connection c = DriverManager.getConnection(newPrimary);
                    Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT status FROM " + table)) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).as("the record on the new primary").isEqualTo("C");
            }
        } finally {
            setReadOnly(primary, 0);
            update(primary, "DROP TABLE IF EXISTS " + table);
            try (Connection c = DriverManager.getConnection(newPrimary);
                    Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + table);
            }
        }
        assertThat(runs).hasValue(1);
    }

    private static void setReadOnly(DataSource admin, int readOnly) throws SQLException {
        update(admin, "SET GLOBAL read_only = " + readOnly);
    }

    /** Creates {@code table} on {@code target} as on {@code source}, with its rows. */
    private static void copyTable(DataSource source, String table, String target) throws SQLException {
        try (Connection from = source.getConnection();
                Connection to = DriverManager.getConnection(target);
                Statement read = from.createStatement();
                Statement write = to.createStatement()) {
            try (ResultSet ddl = read.executeQuery("SHOW CREATE TABLE " + table)) {
                ddl.next();
                write.execute(ddl.getString(2));
            }
            try (ResultSet rows = read.executeQuery("SELECT * FROM " + table)) {
                int columns = rows.getMetaData().getColumnCount();
                String marks = "?" + ", ?".repeat(columns - 1);
                try (PreparedStatement insert =
                        to.prepareStatement("INSERT INTO " + table + " VALUES (" + marks + ")")) {
                    while (rows.next()) {
                        for (int i = 1; i <= columns; i++) {
                            insert.setObject(i, rows.getObject(i));
                        }
                        insert.executeUpdate();
                    }
                }
            }
        }
    }

    /** A data source whose new connections go to the URL {@code address} holds now; counts them. */
    private static DataSource following(AtomicReference<String> address, AtomicInteger opened) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "getConnection" -> {
                            opened.incrementAndGet();
                            return DriverManager.getConnection(address.get());
                        }
                        case "getLoginTimeout" -> {
                            return 0;
                        }
                        case "isWrapperFor" -> {
                            return false;
                        }
                        case "toString" -> {
                            return "following " + address.get();
                        }
                        case "hashCode" -> {
                            return System.identityHashCode(proxy);
                        }
                        case "equals" -> {
                            return proxy == args[0];
                        }
                        default -> {
                            return null;
                        }
                    }
                });
    }

    /**
     * The replica with {@code read_only = 0} (its default): still refused before anything is written,
     * as the administrator (who may list the replication sources) and as {@code dupguard} (who may
     * not, and is refused from the running replication). {@code read_only} is set back in a finally
     * block.
     */
    @Test
    void aReplicaWithReadOnlyOffIsRefusedByItsReplicationSource() throws SQLException {
        String table = "dg_k7_ro_off_" + Long.toString(System.nanoTime(), 36);
        setReadOnly(replica, 0);
        try {
            for (DataSource ds : new DataSource[] {replica, replicaWriter}) {
                assertThatThrownBy(() -> JdbcIdempotencyStore.builder(ds)
                                .tableName(table)
                                .createSchemaIfMissing(true)
                                .build()
                                .claim(
                                        IdempotencyKey.of("k7", "off"),
                                        Fingerprint.none(),
                                        "owner",
                                        Duration.ofSeconds(30)))
                        .isInstanceOf(ReadOnlyStoreException.class)
                        .hasMessageContaining(ds == replica ? "replicates from " + HOSTS[0] : "Slaves_running = 1")
                        .hasMessageContaining("must write to the primary");
            }
            assertThat(count(
                            replica,
                            "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = '" + table + "'"))
                    .as("nothing written on the replica")
                    .isZero();
        } finally {
            setReadOnly(replica, 1);
        }
    }
}
