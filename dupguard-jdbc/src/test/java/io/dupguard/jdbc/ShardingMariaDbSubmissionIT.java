package io.dupguard.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/** Tokens, throttle and prepared submissions through ShardingSphere-JDBC over two MariaDb databases. */
@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class ShardingMariaDbSubmissionIT extends AbstractJdbcSubmissionIT {
    ShardingMariaDbSubmissionIT() {
        super(size -> ShardedDatabases.dataSource(TestDatabases.Db.MARIADB));
    }

    /**
     * A commit whose work writes on the transaction's connection would commit the binding row (on
     * its pre-id's shard) and the business row (on its own) shard by shard: refused before the work
     * runs, naming the form to use; that form then binds the pre-id.
     */
    @Test
    void aCommitWithTheWorkOnTheConnectionIsRefusedBeforeTheWorkRuns() {
        JdbcPreparedSubmissions submissions = JdbcPreparedSubmissions.create(
                ShardedDatabases.dataSource(TestDatabases.Db.MARIADB), JdbcPreparedSubmissions.DEFAULT_TABLE, true);
        String preId = submissions.prepare("alice");
        AtomicInteger runs = new AtomicInteger();
        assertThatThrownBy(() -> submissions.commit("alice", preId, c -> "order-" + runs.incrementAndGet()))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("ShardingSphere")
                .hasMessageContaining("commit(subject, preId, IdempotentWork)");
        assertThat(runs).hasValue(0);
        assertThat(submissions.commit("alice", preId, () -> "order-1").value()).isEqualTo("order-1");
    }
}
