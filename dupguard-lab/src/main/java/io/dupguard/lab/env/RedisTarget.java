package io.dupguard.lab.env;

import io.dupguard.redis.RedisIdempotencyStore;
import io.dupguard.redis.RedisLockProvider;
import io.dupguard.redis.RedisSubmissionTokens;
import io.dupguard.redis.RedisSubmitThrottle;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The Redis of {@code --redis-url}: one {@code redis://host:port} URI is a standalone server; a
 * comma-separated list of them, or {@code redis-cluster://host:port[,host:port…]}, is a Redis
 * Cluster given by its seed nodes. Connected and pinged once when opened, with short timeouts, so
 * a server that is down fails the command at once.
 */
public final class RedisTarget implements AutoCloseable {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(3);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);
    private static final String CLUSTER_SCHEME = "redis-cluster://";
    private static final String SENTINEL_SCHEME = "redis-sentinel://";
    /** {@code CLIENT SETNAME} of every connection the lab opens. */
    static final String CLIENT_NAME = "dupguard-lab";

    private final RedisClient standalone;
    private final RedisURI standaloneUri;
    private final RedisClusterClient cluster;
    private final String label;
    private final String url;
    private RedisClient withDefaultUri; // made on first use; guarded by this
    private int replicaAcks; // set once, right after connecting: 0 for none

    private RedisTarget(RedisClient standalone, RedisURI uri, RedisClusterClient cluster, String label, String url) {
        this.standalone = standalone;
        this.standaloneUri = uri;
        this.cluster = cluster;
        this.label = label;
        this.url = url;
    }

    /** The URL this target was connected with. */
    String url() {
        return url;
    }

    /**
     * Connects and pings.
     *
     * @throws IllegalArgumentException if {@code url} is not a Redis URI or list of them
     * @throws UnreachableException naming the URL if Redis does not answer
     */
    static RedisTarget connect(String url) {
        List<RedisURI> uris = parse(url);
        String shown = Secrets.mask(url);
        SocketOptions socket =
                SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build();
        if (uris.size() == 1 && !url.startsWith(CLUSTER_SCHEME)) {
            RedisClient client = RedisClient.create();
            client.setOptions(ClientOptions.builder().socketOptions(socket).build());
            try (var c = client.connect(uris.get(0))) {
                c.sync().ping();
            } catch (RedisException e) {
                shutdown(client);
                throw unreachable(shown, e);
            }
            String kind = url.startsWith(SENTINEL_SCHEME) ? "Redis (Sentinel) " : "Redis ";
            return new RedisTarget(client, uris.get(0), null, kind + shown, url);
        }
        RedisClusterClient client = RedisClusterClient.create(uris);
        client.setOptions(ClusterClientOptions.builder().socketOptions(socket).build());
        try (var c = client.connect()) {
            c.sync().ping();
        } catch (RedisException e) {
            shutdown(client);
            throw unreachable(shown, e);
        }
        return new RedisTarget(null, null, client, "Redis Cluster " + shown, url);
    }

    private static List<RedisURI> parse(String url) {
        List<String> parts = new ArrayList<>();
        if (url.startsWith(SENTINEL_SCHEME)) {
            parts.add(url); // one URI: the Sentinels, and the master's name after '#'
        } else if (url.startsWith(CLUSTER_SCHEME)) {
            for (String host : url.substring(CLUSTER_SCHEME.length()).split(",")) {
                parts.add("redis://" + host.trim());
            }
        } else {
            for (String part : url.split(",")) {
                parts.add(part.trim());
            }
        }
        List<RedisURI> uris = new ArrayList<>();
        for (String part : parts) {
            try {
                RedisURI uri = RedisURI.create(part);
                uri.setTimeout(COMMAND_TIMEOUT);
                uri.setClientName(CLIENT_NAME); // so faults touch only the lab's own connections
                uris.add(uri);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("invalid --redis-url '" + Secrets.mask(url)
                        + "': expected redis://host:port, a comma-separated list of them (Cluster),"
                        + " redis-cluster://host:port,host:port, or redis-sentinel://host:port,host:port#master");
            }
        }
        return uris;
    }

    private static UnreachableException unreachable(String shown, RedisException e) {
        return new UnreachableException(
                "cannot reach --redis-url " + shown + ": " + UnreachableException.rootMessage(e), e);
    }

    /**
     * As {@link #connect(String)}; every store, lock provider, token store and throttle made from
     * it then waits for {@code replicas} replicas to acknowledge each write ({@code
     * replicaAcks(replicas, }{@value #REPLICA_ACK_TIMEOUT_MILLIS}{@code  ms)}).
     */
    static RedisTarget connect(String url, int replicas) {
        RedisTarget target = connect(url);
        target.replicaAcks = replicas;
        return target;
    }

    /** Well below the command timeout, which would otherwise cut a {@code WAIT} short as an outage. */
    static final long REPLICA_ACK_TIMEOUT_MILLIS = 500;

    private Duration ackTimeout() {
        return Duration.ofMillis(REPLICA_ACK_TIMEOUT_MILLIS);
    }

    /** A new store writing under {@code keyPrefix}; the caller closes it. */
    public RedisIdempotencyStore newIdempotencyStore(String keyPrefix) {
        RedisIdempotencyStore.Builder b = cluster != null
                ? RedisIdempotencyStore.builder(cluster)
                : RedisIdempotencyStore.builder(standalone, standaloneUri);
        if (replicaAcks > 0) {
            b.replicaAcks(replicaAcks, ackTimeout());
        }
        return b.keyPrefix(keyPrefix).build();
    }

    /** A new lock provider writing under {@code keyPrefix}; the caller closes it. */
    public RedisLockProvider newLockProvider(String keyPrefix) {
        RedisLockProvider.Builder b = cluster != null
                ? RedisLockProvider.builder(cluster)
                : RedisLockProvider.builder(standalone, standaloneUri);
        if (replicaAcks > 0) {
            b.replicaAcks(replicaAcks, ackTimeout());
        }
        return b.keyPrefix(keyPrefix).build();
    }

    /** New submission tokens on this Redis (default key prefix; the lab scopes them per trial); the caller closes them. */
    public RedisSubmissionTokens newSubmissionTokens() {
        RedisSubmissionTokens.Builder b = cluster != null
                ? RedisSubmissionTokens.builder(cluster)
                : RedisSubmissionTokens.builder(defaultClient());
        if (replicaAcks > 0) {
            b.replicaAcks(replicaAcks, ackTimeout());
        }
        return b.build();
    }

    /** A new submit throttle on this Redis (default key prefix; the lab scopes it per trial); the caller closes it. */
    public RedisSubmitThrottle newSubmitThrottle() {
        RedisSubmitThrottle.Builder b =
                cluster != null ? RedisSubmitThrottle.builder(cluster) : RedisSubmitThrottle.builder(defaultClient());
        if (replicaAcks > 0) {
            b.replicaAcks(replicaAcks, ackTimeout());
        }
        return b.build();
    }

    /** The tokens and throttle connect with their client's default URI: a client that has this one. */
    private synchronized RedisClient defaultClient() {
        if (withDefaultUri == null) {
            withDefaultUri = RedisClient.create(standaloneUri);
            withDefaultUri.setOptions(ClientOptions.builder()
                    .socketOptions(SocketOptions.builder()
                            .connectTimeout(CONNECT_TIMEOUT)
                            .build())
                    .build());
        }
        return withDefaultUri;
    }

    /**
     * Stalls the server (every master of a Cluster) for {@code duration}: {@code CLIENT PAUSE …
     * ALL}. Commands queue on the server meanwhile.
     */
    public void pause(Duration duration) {
        forEachNode(c -> c.clientPause(duration.toMillis()));
    }

    /**
     * Kills the lab's own connections ({@code CLIENT KILL ID} of every client named {@value
     * #CLIENT_NAME}, except the one asking); Lettuce reconnects them. Returns how many.
     */
    public int killLabConnections() {
        int[] killed = {0};
        forEachNode(c -> {
            long self = c.clientId();
            for (String line : c.clientList().split("\n")) {
                if (line.contains(" name=" + CLIENT_NAME + " ")) {
                    long id = Long.parseLong(line.substring(3, line.indexOf(' ')));
                    if (id != self) {
                        killed[0] += c.clientKill(KillArgs.Builder.id(id)).intValue();
                    }
                }
            }
            return null;
        });
        return killed[0];
    }

    /**
     * Runs {@code work} on a connection of its own to a standalone server (the scale study's bulk
     * writes and {@code INFO}).
     *
     * @throws IllegalStateException on a Redis Cluster
     */
    public <T> T onStandalone(Function<StatefulRedisConnection<String, String>, T> work) {
        if (standalone == null) {
            throw new IllegalStateException("needs a standalone Redis, not a Cluster");
        }
        try (StatefulRedisConnection<String, String> c = standalone.connect(standaloneUri)) {
            return work.apply(c);
        }
    }

    /** The lab's connections to the server (every master of a Cluster), the asking one included. */
    public int labConnections() {
        int[] n = {0};
        forEachNode(c -> {
            for (String line : c.clientList().split("\n")) {
                if (line.contains(" name=" + CLIENT_NAME + " ")) {
                    n[0]++;
                }
            }
            return null;
        });
        return n[0];
    }

    private void forEachNode(Function<RedisCommands<String, String>, ?> command) {
        if (standalone != null) {
            try (StatefulRedisConnection<String, String> c = standalone.connect(standaloneUri)) {
                command.apply(c.sync());
            }
            return;
        }
        try (StatefulRedisClusterConnection<String, String> c = cluster.connect()) {
            for (RedisClusterNode node : c.getPartitions()) {
                if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                    command.apply(c.getConnection(node.getNodeId()).sync());
                }
            }
        }
    }

    /** What the report calls it. */
    public String label() {
        return replicaAcks > 0
                ? label + " with replicaAcks(" + replicaAcks + ", " + REPLICA_ACK_TIMEOUT_MILLIS + " ms)"
                : label;
    }

    /**
     * Drops every connection at once, as a dying process does: commands in flight fail, nothing
     * queued is sent.
     */
    void crash() {
        (standalone != null ? standalone : cluster).shutdown(Duration.ZERO, Duration.ZERO);
        RedisClient other = defaultClientIfMade();
        if (other != null) {
            other.shutdown(Duration.ZERO, Duration.ZERO);
        }
    }

    @Override
    public void close() {
        RedisClient other = defaultClientIfMade();
        if (other != null) {
            shutdown(other);
        }
        shutdown(standalone != null ? standalone : cluster);
    }

    private synchronized RedisClient defaultClientIfMade() {
        return withDefaultUri;
    }

    private static void shutdown(AbstractRedisClient client) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
