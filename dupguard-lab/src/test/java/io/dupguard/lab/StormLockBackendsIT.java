package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every lock backend on real servers — the JDBC lock and the fenced rows on PostgreSQL, Redis
 * standalone, the three Redlock nodes, an in-process ZooKeeper — each unfenced (stale writes land)
 * and fenced (refused). A server that cannot be reached fails the test (status 2).
 */
class StormLockBackendsIT {
    static final String REDLOCK = System.getProperty(
            "dupguard.redlock.urls", "redis://127.0.0.1:7100,redis://127.0.0.1:7101,redis://127.0.0.1:7102");

    @TempDir
    Path dir;

    @Test
    void fencingRefusesTheStaleWritesThatEveryBackendLetsThrough() throws Exception {
        Path json = dir.resolve("locks.json");
        LabCli.Result r = LabCli.run(
                "storm",
                "--workload",
                "lock-backends",
                "--duration",
                "700ms",
                "--clients",
                "24",
                "--jdbc-url",
                StormPostgresRedisIT.PG,
                "--redis-url",
                StormPostgresRedisIT.REDIS,
                "--redlock-urls",
                REDLOCK,
                "--zookeeper",
                "embedded",
                "--json",
                json.toString());

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        StormJson.assertNaiveFailAndDupguardHolds(
                StormJson.read(json), Map.of("lock-backends", Expected.allLockBackends()));
        assertThat(r.out())
                .contains("+ Redis redis://127.0.0.1:6379", "+ Redlock redis://127.0.0.1:7100")
                .contains("+ ZooKeeper (embedded, ")
                .contains("exclusion violations 0");
    }
}
