package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storm on the real servers: PostgreSQL for every table and JDBC store, Redis for the Redis
 * store — standalone and Cluster. A server that cannot be reached fails the test (status 2).
 */
class StormPostgresRedisIT {
    static final String PG =
            System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    static final String REDIS = System.getProperty("dupguard.redis.url", "redis://127.0.0.1:6379");
    static final String CLUSTER = System.getProperty(
            "dupguard.redis.cluster", "redis://127.0.0.1:7000,redis://127.0.0.1:7001,redis://127.0.0.1:7002");

    @TempDir
    Path dir;

    @Test
    void naiveStrategiesDuplicateAndDupguardStrategiesHoldOnPostgresAndRedis() throws Exception {
        Path json = dir.resolve("storm.json");
        LabCli.Result r = LabCli.run(
                "storm",
                "--duration",
                "1s",
                "--clients",
                "24",
                "--jdbc-url",
                PG,
                "--redis-url",
                REDIS,
                "--json",
                json.toString());

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        Map<String, List<String>> expected = new LinkedHashMap<>();
        expected.put(
                "account-binding",
                List.of("select-then-insert", "unique-key-catch", "insert-ignore-reread", "lock", "idempotency"));
        expected.put(
                "payment",
                List.of(
                        "none",
                        "select-then-insert",
                        "idempotency-memory",
                        "idempotency-jdbc",
                        "idempotency-jdbc-tx",
                        "idempotency-redis"));
        StormJson.assertNaiveFailAndDupguardHolds(StormJson.read(json), expected);
        assertThat(r.out()).contains("on jdbc:postgresql://127.0.0.1:5432/test").contains("+ Redis redis://");
    }

    @Test
    void redisStoreHoldsOnRedisCluster() throws Exception {
        Path json = dir.resolve("cluster.json");
        LabCli.Result r = LabCli.run(
                "storm",
                "--workload",
                "payment",
                "--strategy",
                "none,idempotency-redis",
                "--duration",
                "1s",
                "--clients",
                "24",
                "--redis-url",
                CLUSTER,
                "--json",
                json.toString());

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        StormJson.assertNaiveFailAndDupguardHolds(
                StormJson.read(json), Map.of("payment", List.of("none", "idempotency-redis")));
        assertThat(r.out()).contains("+ Redis Cluster redis://127.0.0.1:7000");
    }
}
