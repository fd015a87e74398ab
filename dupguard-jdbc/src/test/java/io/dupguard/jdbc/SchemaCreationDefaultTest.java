package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.StoreUnavailableException;
import io.dupguard.idempotency.IdempotencyKey;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One rule for every JDBC store (docs/api.md): a store runs no DDL unless asked. With the builder's
 * defaults the first call on a database without the table fails and creates nothing; with {@code
 * createSchemaIfMissing(true)} it creates the table and succeeds.
 */
class SchemaCreationDefaultTest {
    private static final AtomicInteger DATABASES = new AtomicInteger();

    /** A store kind: its default table, a builder, and one call that needs the table. */
    private record Kind(
            String table, Function<DataSource, JdbcStoreBuilder<?, ?>> builder, Consumer<Object> firstCall) {
        @Override
        public String toString() {
            return table;
        }
    }

    static List<Kind> kinds() {
        return List.of(
                new Kind(JdbcIdempotencyStore.DEFAULT_TABLE, JdbcIdempotencyStore::builder, s -> ((JdbcIdempotencyStore)
                                s)
                        .find(IdempotencyKey.of("schema", "k"))),
                new Kind(JdbcLockProvider.DEFAULT_TABLE, JdbcLockProvider::builder, s -> ((JdbcLockProvider) s)
                        .tryAcquire("schema")
                        .ifPresent(l -> l.close())),
                new Kind(JdbcRetryStore.DEFAULT_TABLE, JdbcRetryStore::builder, s -> ((JdbcRetryStore) s).find(1)),
                new Kind(JdbcSubmissionTokens.DEFAULT_TABLE, JdbcSubmissionTokens::builder, s -> ((JdbcSubmissionTokens)
                                s)
                        .issue("schema", "subject", Duration.ofMinutes(1))),
                new Kind(JdbcSubmitThrottle.DEFAULT_TABLE, JdbcSubmitThrottle::builder, s -> ((JdbcSubmitThrottle) s)
                        .tryAcquire("schema", "subject", Duration.ofMinutes(1))),
                new Kind(
                        JdbcPreparedSubmissions.DEFAULT_TABLE,
                        JdbcPreparedSubmissions::builder,
                        s -> ((JdbcPreparedSubmissions) s).prepare("subject")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void byDefaultAStoreCreatesNoTable(Kind kind) throws SQLException {
        DataSource ds = freshDatabase();
        Object store = kind.builder().apply(ds).build();

        assertThatThrownBy(() -> kind.firstCall().accept(store)).isInstanceOf(StoreUnavailableException.class);
        assertThat(tableExists(ds, kind.table())).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void createSchemaIfMissingCreatesTheTableOnFirstUse(Kind kind) throws SQLException {
        DataSource ds = freshDatabase();
        Object store = kind.builder().apply(ds).createSchemaIfMissing(true).build();

        kind.firstCall().accept(store);
        assertThat(tableExists(ds, kind.table())).isTrue();
    }

    private static DataSource freshDatabase() {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:schema-default-" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1");
        return ds;
    }

    private static boolean tableExists(DataSource ds, String table) throws SQLException {
        try (Connection c = ds.getConnection();
                ResultSet rs = c.getMetaData().getTables(null, null, table.toUpperCase(Locale.ROOT), null)) {
            return rs.next();
        }
    }
}
