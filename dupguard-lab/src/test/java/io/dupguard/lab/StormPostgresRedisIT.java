package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storm on the real servers: PostgreSQL for every table and JDBC store, Redis for the Redis
 * store and lock — standalone and Cluster. A server that cannot be reached fails the test (status 2).
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
    void naiveStrategiesFailAndDupguardStrategiesHoldOnPostgresAndRedis() throws Exception {
        Path json = dir.resolve("storm.json");
        LabCli.Result r = LabCli.run(
                "storm",
                "--duration",
                "700ms",
                "--clients",
                "24",
                "--jdbc-url",
                PG,
                "--redis-url",
                REDIS,
                "--json",
                json.toString());

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        Map<String, List<String>> expected = Expected.defaultWorkloads();
        List<String> payment = new ArrayList<>(expected.get("payment"));
        payment.add("idempotency-redis");
        payment.add("idempotency-redis-backstop");
        expected.put("payment", payment);
        expected.put("form-submit", List.of("none", "throttle", "throttle-redis", "token", "token-redis", "prepared"));
        StormJson.assertNaiveFailAndDupguardHolds(StormJson.read(json), expected);
        assertThat(r.out()).contains("on jdbc:postgresql://127.0.0.1:5432/test").contains("+ Redis redis://");
    }

    @Test
    void redisStoreAndLockHoldOnRedisCluster() throws Exception {
        Path json = dir.resolve("cluster.json");
        LabCli.Result r = LabCli.run(
                "storm",
                "--workload",
                "payment,lock-backends",
                "--strategy",
                "none,idempotency-redis,redis-unfenced,redis-fenced",
                "--duration",
                "700ms",
                "--clients",
                "24",
                "--redis-url",
                CLUSTER,
                "--json",
                json.toString());

        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        StormJson.assertNaiveFailAndDupguardHolds(
                StormJson.read(json),
                Map.of(
                        "payment", List.of("none", "idempotency-redis"),
                        "lock-backends", List.of("redis-unfenced", "redis-fenced")));
        assertThat(r.out()).contains("+ Redis Cluster redis://127.0.0.1:7000");
    }
}
