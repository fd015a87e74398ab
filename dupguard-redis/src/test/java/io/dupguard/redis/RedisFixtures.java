package io.dupguard.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Where the test servers are (system properties set by failsafe from the parent pom, with the same
 * defaults for runs from an IDE) and clients that fail fast when nothing answers.
 */
final class RedisFixtures {
    /** Port 1 (tcpmux) is never served on the test machines, so connecting is refused at once. */
    static final String DEAD_URL = "redis://127.0.0.1:1";

    private RedisFixtures() {}

    static String standaloneUrl() {
        return System.getProperty("dupguard.redis.url", "redis://127.0.0.1:6379");
    }

    static List<RedisURI> clusterSeeds() {
        return seeds(System.getProperty(
                "dupguard.redis.cluster", "redis://127.0.0.1:7000,redis://127.0.0.1:7001,redis://127.0.0.1:7002"));
    }

    /** The Redis Cluster whose masters have a replica each (7300-7305 of {@code scripts/services}). */
    static List<RedisURI> replicaClusterSeeds() {
        return seeds(System.getProperty(
                "dupguard.redis.replica-cluster",
                "redis://127.0.0.1:7300,redis://127.0.0.1:7301,redis://127.0.0.1:7302"));
    }

    private static List<RedisURI> seeds(String seeds) {
        return Arrays.stream(seeds.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .map(RedisFixtures::uri)
                .toList();
    }

    /** A URI whose command timeout is short, so a dead server fails a test in seconds. */
    static RedisURI uri(String url) {
        RedisURI uri = RedisURI.create(url);
        uri.setTimeout(Duration.ofSeconds(2));
        return uri;
    }

    /** Command timeout of the clients in outage tests: a paused server fails a command this fast. */
    static final Duration OUTAGE_TIMEOUT = Duration.ofMillis(300);

    /** A client on {@code url} whose commands time out after {@link #OUTAGE_TIMEOUT}. */
    static RedisClient impatientClient(String url) {
        RedisURI uri = RedisURI.create(url);
        uri.setTimeout(OUTAGE_TIMEOUT);
        return RedisClient.create(uri);
    }

    /** A Redis Cluster client whose commands time out after {@link #OUTAGE_TIMEOUT}. */
    static RedisClusterClient impatientClusterClient() {
        List<RedisURI> seeds = clusterSeeds();
        seeds.forEach(u -> u.setTimeout(OUTAGE_TIMEOUT));
        return RedisClusterClient.create(seeds);
    }

    /** Pauses every node of {@code uris} at once, as a stalled cluster or quorum. */
    static void pauseAll(List<RedisURI> uris, Duration duration) {
        uris.forEach(u -> ThrowawayRedis.pause(u.getHost(), u.getPort(), duration));
    }

    static RedisClient standaloneClient() {
        return RedisClient.create(uri(standaloneUrl()));
    }

    static RedisClusterClient clusterClient() {
        return RedisClusterClient.create(clusterSeeds());
    }

    /** A client on an address where nothing listens, set up to fail in well under a second. */
    static RedisClient deadStandaloneClient() {
        RedisClient client = RedisClient.create(uri(DEAD_URL));
        client.setOptions(ClientOptions.builder()
                .socketOptions(fastConnect())
                .autoReconnect(false)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        return client;
    }

    static RedisClusterClient deadClusterClient() {
        RedisClusterClient client = RedisClusterClient.create(uri(DEAD_URL));
        client.setOptions(ClusterClientOptions.builder()
                .socketOptions(fastConnect())
                .autoReconnect(false)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        return client;
    }

    private static SocketOptions fastConnect() {
        return SocketOptions.builder().connectTimeout(Duration.ofMillis(500)).build();
    }
}
