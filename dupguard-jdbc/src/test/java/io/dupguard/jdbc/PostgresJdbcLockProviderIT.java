package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

class PostgresJdbcLockProviderIT extends AbstractJdbcLockProviderIT {
    PostgresJdbcLockProviderIT() {
        super(TestDatabases.Db.POSTGRESQL);
    }

    /**
     * The release turns synchronous_commit off for its own transaction only: the pooled connection
     * must come back with the session's setting, or every later user of it would commit
     * asynchronously without knowing.
     */
    @Test
    void releaseLeavesTheConnectionsSynchronousCommitAlone() throws Exception {
        try (HikariDataSource ds = TestDatabases.pool(TestDatabases.Db.POSTGRESQL, 1)) {
            JdbcLockProvider locks =
                    JdbcLockProvider.builder(ds).createSchemaIfMissing(true).build();
            String name = "sync-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
            for (int i = 0; i < 3; i++) {
                try (Lease lease = locks.acquire(name, LockOptions.ofDefaults())) {
                    assertThat(lease.isHeld()).isTrue();
                }
            }
            assertThat(locks.tryAcquire(name, LockOptions.ofDefaults())).hasValueSatisfying(Lease::close);
            try (Connection c = ds.getConnection(); // the one connection every call above used
                    Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SHOW synchronous_commit")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("on");
            }
        }
    }
}
