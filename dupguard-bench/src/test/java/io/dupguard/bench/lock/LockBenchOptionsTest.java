package io.dupguard.bench.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The lock bench's command line: the shared options with its own defaults, and its own options. */
class LockBenchOptionsTest {

    @Test
    void defaults() {
        LockBenchOptions o = LockBenchOptions.parse();
        assertThat(o.threads()).isEqualTo(16);
        assertThat(o.duration()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.rounds()).isEqualTo(3);
        assertThat(o.poolSize()).isEqualTo(16);
        assertThat(o.out()).isEqualTo(Path.of("docs/benchmarks-locks.md"));
        assertThat(o.mariadbUrl()).isEqualTo("jdbc:mariadb://127.0.0.1:3306/test?user=root");
        assertThat(o.auditCycles()).isEqualTo(200);
        assertThat(o.auditContended()).isEqualTo(Duration.ofSeconds(1));
        assertThat(o.targets()).containsExactly(LockBenchOptions.Target.values());
    }

    @Test
    void ownOptions() {
        LockBenchOptions o = LockBenchOptions.parse(
                "--targets", "zk,redis", "--audit-cycles", "0", "--audit-contended", "500ms", "--rows", "dupguard");
        assertThat(o.targets()).containsExactly(LockBenchOptions.Target.REDIS, LockBenchOptions.Target.ZOOKEEPER);
        assertThat(o.auditCycles()).isZero();
        assertThat(o.auditContended()).isEqualTo(Duration.ofMillis(500));
        assertThat(o.runs("dupguard JdbcLockProvider")).isTrue();
        assertThat(o.runs("Redisson RLock")).isFalse();
        assertThatThrownBy(() -> LockBenchOptions.parse("--audit-cycles", "-1"))
                .hasMessageContaining("--audit-cycles")
                .hasMessageContaining("at least 0");
        assertThatThrownBy(() -> LockBenchOptions.parse("--targets", "etcd"))
                .hasMessageContaining("unknown target 'etcd'");
    }
}
