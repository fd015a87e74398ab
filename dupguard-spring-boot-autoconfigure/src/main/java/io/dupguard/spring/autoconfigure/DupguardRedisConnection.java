package io.dupguard.spring.autoconfigure;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/**
 * The Lettuce client dupguard's Redis stores use, built from Boot's {@link
 * DataRedisConnectionDetails} ({@code spring.data.redis.*}, or a service connection): standalone,
 * Sentinel or Cluster, with username, password, database and TLS on/off. Shut down with the
 * context. Replace the bean to tune the client (resources, TLS trust).
 */
public final class DupguardRedisConnection implements DisposableBean {
    private final AbstractRedisClient client;
    private final RedisURI uri;
    private RedisClient uriBound;

    private DupguardRedisConnection(AbstractRedisClient client, RedisURI uri) {
        this.client = client;
        this.uri = uri;
    }

    /** A standalone or Sentinel connection on {@code uri}. */
    public static DupguardRedisConnection standalone(RedisClient client, RedisURI uri) {
        return new DupguardRedisConnection(client, uri);
    }

    /** A Cluster connection. */
    public static DupguardRedisConnection cluster(RedisClusterClient client) {
        return new DupguardRedisConnection(client, null);
    }

    /** Builds the client the application's Redis settings describe. */
    public static DupguardRedisConnection from(DataRedisConnectionDetails details, Duration timeout) {
        String user = details.getUsername();
        String password = details.getPassword();
        boolean ssl = details.getSslBundle() != null;
        if (details.getCluster() != null) {
            List<RedisURI> nodes = new ArrayList<>();
            for (DataRedisConnectionDetails.Node node : details.getCluster().getNodes()) {
                RedisURI.Builder b = RedisURI.builder().withHost(node.host()).withPort(node.port());
                nodes.add(finish(b, user, password, ssl, timeout));
            }
            return cluster(RedisClusterClient.create(nodes));
        }
        RedisURI.Builder b;
        DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
        if (sentinel != null) {
            List<DataRedisConnectionDetails.Node> nodes = sentinel.getNodes();
            b = RedisURI.Builder.sentinel(nodes.get(0).host(), nodes.get(0).port(), sentinel.getMaster());
            for (DataRedisConnectionDetails.Node node : nodes.subList(1, nodes.size())) {
                b.withSentinel(node.host(), node.port());
            }
            b.withDatabase(sentinel.getDatabase());
        } else {
            DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
            b = RedisURI.builder()
                    .withHost(standalone.getHost())
                    .withPort(standalone.getPort())
                    .withDatabase(standalone.getDatabase());
        }
        return standalone(RedisClient.create(), finish(b, user, password, ssl, timeout));
    }

    private static RedisURI finish(RedisURI.Builder b, String user, String password, boolean ssl, Duration timeout) {
        if (password != null) {
            if (user != null) {
                b.withAuthentication(user, password.toCharArray());
            } else {
                b.withPassword(password.toCharArray());
            }
        }
        if (timeout != null) {
            b.withTimeout(timeout);
        }
        return b.withSsl(ssl).build();
    }

    /** The client: a {@link RedisClient} or a {@link RedisClusterClient}. */
    public AbstractRedisClient client() {
        return client;
    }

    /** Whether this is a Cluster connection. */
    public boolean isCluster() {
        return client instanceof RedisClusterClient;
    }

    /** The standalone or Sentinel URI; null for Cluster. */
    public RedisURI uri() {
        return uri;
    }

    /**
     * A standalone client whose default URI is {@link #uri()}, for the stores that take no URI
     * (tokens, throttle); created once, shut down with this bean.
     */
    public synchronized RedisClient uriBoundClient() {
        if (isCluster()) {
            throw new IllegalStateException("a Cluster connection has no single URI");
        }
        if (uriBound == null) {
            uriBound = RedisClient.create(uri);
        }
        return uriBound;
    }

    @Override
    public synchronized void destroy() {
        client.shutdown();
        if (uriBound != null) {
            uriBound.shutdown();
        }
    }
}
