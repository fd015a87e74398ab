package io.dupguard.lab.env;

import io.dupguard.redis.RedlockProvider;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The independent Redis servers of {@code --redlock-urls} (at least three {@code redis://host:port},
 * comma-separated). Each is pinged once when opened, so a node that is down fails the command at
 * once; one client serves every trial's {@link RedlockProvider}.
 */
public final class RedlockTarget implements AutoCloseable {
    /**
     * Below the lab's 600 ms leases, yet above the stalls of a loaded two-core machine: with the
     * library's default, {@code min(50 ms, lease / 10)}, such a machine fails acquisitions and
     * releases for want of a quorum.
     */
    static final Duration NODE_TIMEOUT = Duration.ofMillis(250);

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(3);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

    private final RedisClient client;
    private final List<RedisURI> nodes;
    private final String urls;
    private final String label;

    private RedlockTarget(RedisClient client, List<RedisURI> nodes, String urls, String label) {
        this.client = client;
        this.nodes = nodes;
        this.urls = urls;
        this.label = label;
    }

    /**
     * Connects to and pings every node.
     *
     * @throws IllegalArgumentException if {@code urls} is not a list of at least three Redis URIs
     * @throws UnreachableException naming the node if one does not answer
     */
    static RedlockTarget connect(String urls) {
        String shown = Secrets.mask(urls);
        List<RedisURI> nodes = new ArrayList<>();
        for (String part : urls.split(",")) {
            try {
                RedisURI uri = RedisURI.create(part.trim());
                uri.setTimeout(COMMAND_TIMEOUT);
                nodes.add(uri);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(
                        "invalid --redlock-urls '" + shown + "': expected redis://host:port,redis://host:port,...");
            }
        }
        if (nodes.size() < 3) {
            throw new IllegalArgumentException(
                    "--redlock-urls needs at least 3 independent Redis servers, got " + nodes.size());
        }
        RedisClient client = RedisClient.create();
        client.setOptions(ClientOptions.builder()
                .socketOptions(
                        SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build())
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .build());
        for (RedisURI node : nodes) {
            try (var c = client.connect(node)) {
                c.sync().ping();
            } catch (RedisException e) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                throw new UnreachableException(
                        "cannot reach Redlock node " + node.getHost() + ":" + node.getPort() + " of --redlock-urls "
                                + shown + ": " + UnreachableException.rootMessage(e),
                        e);
            }
        }
        return new RedlockTarget(client, List.copyOf(nodes), urls, "Redlock " + shown);
    }

    /** A second application instance's own client on the same nodes ({@code instance-crash}). */
    RedlockTarget instance() {
        return connect(urls);
    }

    /** The process dies: its connections to every node drop at once, nothing released. */
    void crash() {
        client.shutdown(Duration.ZERO, Duration.ZERO);
    }

    /** A new provider on every node, writing under {@code keyPrefix}; the caller closes it. */
    public RedlockProvider newLockProvider(String keyPrefix) {
        return RedlockProvider.builder(client, nodes)
                .keyPrefix(keyPrefix)
                .nodeTimeout(NODE_TIMEOUT)
                .build();
    }

    /** What the report calls it. */
    public String label() {
        return label;
    }

    @Override
    public void close() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
