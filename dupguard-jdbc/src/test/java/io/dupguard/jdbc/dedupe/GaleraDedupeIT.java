package io.dupguard.jdbc.dedupe;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.jdbc.Lanes;
import io.dupguard.jdbc.TestDatabases;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The MariaDB dedupe contract with dedupe running on Galera node 1 and every outcome read on node
 * 2: the deletions, the backup table and the unique index reach the other nodes.
 */
@Execution(ExecutionMode.CONCURRENT) // in the Galera lane, holding the MariaDB lane's lock too (inherited): see Lanes
@ResourceLock(Lanes.GALERA)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GaleraDedupeIT extends MariaDbDedupeIT {
    private final List<String> nodes = TestDatabases.galeraUrls();
    private final HikariDataSource node2 = DedupeDb.pool(nodes.get(1), 2);

    @Override
    String url() {
        return nodes.get(0);
    }

    @Override
    DataSource reader() {
        return node2;
    }

    @AfterAll
    void closeNode2() {
        node2.close();
    }
}
