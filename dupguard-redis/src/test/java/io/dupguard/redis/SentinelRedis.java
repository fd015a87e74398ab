package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The Sentinel-managed Redis of {@code scripts/services}: a master and two replicas (7200-7202)
 * watched by three Sentinels (26400-26402) under the master name {@code dupguard}, or what the
 * system property {@code dupguard.redis.sentinel} names. Which node is master is asked, never
 * assumed: a failover may have moved it. A test that cannot reach it fails; it does not skip.
 */
final class SentinelRedis {
    static final String MASTER = "dupguard";

    private SentinelRedis() {}

    static String url() {
        return System.getProperty(
                "dupguard.redis.sentinel",
                "redis-sentinel://127.0.0.1:26400,127.0.0.1:26401,127.0.0.1:26402/0#" + MASTER);
    }

    /** A client whose default URI is the Sentinel set, so {@code create(client)} discovers the master. */
    static RedisClient client() {
        return RedisClient.create(RedisFixtures.uri(url()));
    }

    /** A client on a Sentinel address where nothing listens, failing in well under a second. */
    static RedisClient deadClient() {
        RedisClient client = RedisClient.create(RedisFixtures.uri("redis-sentinel://127.0.0.1:1/0#" + MASTER));
        client.setOptions(ClientOptions.builder()
                .socketOptions(SocketOptions.builder()
                        .connectTimeout(Duration.ofMillis(500))
                        .build())
                .autoReconnect(false)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        return client;
    }

    /** The replicas the Sentinels know, as {@code {host, port}}; fails unless both are up and linked. */
    static List<RedisURI> healthyReplicas(RedisClient client) {
        try (StatefulRedisSentinelConnection<String, String> sentinel = client.connectSentinel()) {
            List<Map<String, String>> replicas = sentinel.sync().replicas(MASTER);
            assertThat(replicas)
                    .as("replicas of %s as the Sentinels see them", MASTER)
                    .hasSize(2)
                    .allSatisfy(r -> assertThat(r.get("flags")).isEqualTo("slave"))
                    .allSatisfy(r -> assertThat(r.get("master-link-status")).isEqualTo("ok"));
            return replicas.stream()
                    .map(r -> RedisURI.create(r.get("ip"), Integer.parseInt(r.get("port"))))
                    .toList();
        }
    }

    /**
     * Stops every replica from applying, and so from acknowledging, the replication stream for at
     * most {@code pause}: {@code CLIENT PAUSE … WRITE} holds the master's writes on the replica's
     * link while reads still run, so the Sentinels' pings go on answering (no failover) and {@link
     * #unpauseReplicas} ends the pause at once.
     */
    static void pauseReplicas(List<RedisURI> replicas, Duration pause) {
        replicas.forEach(
                r -> ThrowawayRedis.command(r.getHost(), r.getPort(), "CLIENT PAUSE " + pause.toMillis() + " WRITE"));
    }

    /** Runs {@code test} with {@code replicas} paused for at most {@code pause}, and ends the pause after it. */
    static void withReplicasPaused(List<RedisURI> replicas, Duration pause, Runnable test) {
        pauseReplicas(replicas, pause);
        try {
            test.run();
        } finally {
            unpauseReplicas(replicas);
        }
    }

    /** Ends the pause; run in a finally block so no test leaves a replica paused. */
    static void unpauseReplicas(List<RedisURI> replicas) {
        replicas.forEach(r -> ThrowawayRedis.command(r.getHost(), r.getPort(), "CLIENT UNPAUSE"));
    }

    /**
     * A private master with one replica (two {@link ThrowawayRedis}), for the outage cases of the
     * contract: pausing the shared Sentinel master for seconds would make the Sentinels fail over.
     */
    static final class PrivatePair implements AutoCloseable {
        final ThrowawayRedis master;
        final ThrowawayRedis replica;

        PrivatePair() throws IOException {
            master = new ThrowawayRedis(List.of("--repl-diskless-sync-delay", "0"));
            replica = new ThrowawayRedis(List.of("--replicaof", "127.0.0.1", Integer.toString(master.port())));
            RedisClient client = RedisClient.create(RedisFixtures.uri(master.url()));
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> c.sync().info("replication").contains("state=online"));
                // online is not yet acknowledging: a first write waited for until the replica has it,
                // so a test's short WAIT timeouts measure the test, not the replica's start
                c.sync().set("dupguard:pair-ready", "1");
                await().atMost(Duration.ofSeconds(10)).until(() -> c.sync().waitForReplication(1, 2000) >= 1);
            } finally {
                client.shutdown();
            }
        }

        @Override
        public void close() throws Exception {
            try {
                replica.close();
            } finally {
                master.close(); // even if the replica's did not go: no server outlives the test
            }
        }
    }
}
