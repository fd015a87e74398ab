package io.dupguard.jdbc.dedupe;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dupguard.jdbc.SqlDialect;
import io.dupguard.jdbc.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * dedupe does not run through ShardingSphere-JDBC 5.5.2: it finds the table in the catalog of the
 * connection's schema, which through ShardingSphere on PostgreSQL is the logical database's name
 * (docs/scaling.md, "Limits and their reason"). It runs on a database's own data source, as the
 * dedupe contract does.
 */
class ShardingDedupeIT {
    @ParameterizedTest
    @EnumSource(value = SqlDialect.class, names = "POSTGRESQL")
    void aScanThroughShardingSphereDoesNotFindTheTable(SqlDialect dialect) throws SQLException {
        DataSource sharding = TestDatabases.sharding(dialect);
        try (Connection c = sharding.getConnection()) {
            DedupeDb.createAccounts(c, dialect, DedupeContract.TABLE); // a single table, on shard0
        }
        Dedupe dedupe = Dedupe.builder(sharding)
                .table(DedupeContract.TABLE)
                .key("open_id")
                .build();

        // Connection.getSchema() answers "dupguard", the YAML's databaseName, not "public".
        assertThatThrownBy(dedupe::scan)
                .isInstanceOf(DedupeException.class)
                .hasMessageContaining("table 't_account' not found in schema dupguard");
    }
}
