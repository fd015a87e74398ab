package io.dupguard.spring.autoconfigure;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * The Lettuce client dupguard's Redis stores use, built from Boot's {@link
 * DataRedisConnectionDetails} ({@code spring.data.redis.*}, or a service connection): standalone,
 * Sentinel or Cluster, with username, password, database, and TLS with the trust (and key)
 * material of the SSL bundle ({@code spring.data.redis.ssl.bundle}). Shut down with the context.
 * Replace the bean to tune the client further (resources, timeouts).
 */
public final class DupguardRedisConnection implements DisposableBean {
    private final AbstractRedisClient client;
    private final RedisURI uri;
    private final ClientOptions options;
    private RedisClient uriBound;

    private DupguardRedisConnection(AbstractRedisClient client, RedisURI uri, ClientOptions options) {
        this.client = client;
        this.uri = uri;
        this.options = options;
    }

    /**
     * A standalone or Sentinel connection on {@code uri}.
     *
     * @param client the Lettuce client, shut down with this bean; not null
     * @param uri the server, or the Sentinel set and master name; not null
     * @return the connection bean
     */
    public static DupguardRedisConnection standalone(RedisClient client, RedisURI uri) {
        return new DupguardRedisConnection(client, uri, client.getOptions());
    }

    /**
     * A Cluster connection.
     *
     * @param client the Lettuce cluster client, shut down with this bean; not null
     * @return the connection bean
     */
    public static DupguardRedisConnection cluster(RedisClusterClient client) {
        return new DupguardRedisConnection(client, null, null);
    }

    /**
     * Builds the client the application's Redis settings describe.
     *
     * @param details Spring Boot's Redis connection details (standalone, Sentinel or Cluster); not
     *     null
     * @param timeout the command timeout, or null for Lettuce's default
     * @return the connection bean, with a client of its own
     */
    public static DupguardRedisConnection from(DataRedisConnectionDetails details, Duration timeout) {
        String user = details.getUsername();
        String password = details.getPassword();
        SslBundle bundle = details.getSslBundle();
        boolean ssl = bundle != null;
        if (details.getCluster() != null) {
            List<RedisURI> nodes = new ArrayList<>();
            for (DataRedisConnectionDetails.Node node : details.getCluster().getNodes()) {
                RedisURI.Builder b = RedisURI.builder().withHost(node.host()).withPort(node.port());
                nodes.add(finish(b, user, password, ssl, timeout));
            }
            RedisClusterClient client = RedisClusterClient.create(nodes);
            if (ssl) {
                client.setOptions(ClusterClientOptions.builder()
                        .sslOptions(sslOptions(bundle))
                        .build());
            }
            return cluster(client);
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
        RedisClient client = RedisClient.create();
        if (ssl) {
            client.setOptions(
                    ClientOptions.builder().sslOptions(sslOptions(bundle)).build());
        }
        return standalone(client, finish(b, user, password, ssl, timeout));
    }

    /**
     * Lettuce's TLS settings from a Boot SSL bundle ({@code spring.data.redis.ssl.bundle}, or the
     * JVM's defaults with {@code spring.data.redis.ssl.enabled=true}), as Boot's own Lettuce
     * configuration applies them: the bundle's trust material (and key material, for client
     * certificates), ciphers and protocols. The peer is verified in full (certificate and host name).
     */
    static SslOptions sslOptions(SslBundle bundle) {
        SslOptions.Builder b = SslOptions.builder()
                .trustManager(bundle.getManagers().getTrustManagerFactory())
                .keyManager(bundle.getManagers().getKeyManagerFactory());
        org.springframework.boot.ssl.SslOptions options = bundle.getOptions();
        if (options.getCiphers() != null) {
            b.cipherSuites(options.getCiphers());
        }
        if (options.getEnabledProtocols() != null) {
            b.protocols(options.getEnabledProtocols());
        }
        return b.build();
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

    /**
     * The client: a {@link RedisClient} or a {@link RedisClusterClient}.
     *
     * @return the client; never null
     */
    public AbstractRedisClient client() {
        return client;
    }

    /**
     * Whether this is a Cluster connection.
     *
     * @return true for Redis Cluster
     */
    public boolean isCluster() {
        return client instanceof RedisClusterClient;
    }

    /**
     * The standalone or Sentinel URI; null for Cluster.
     *
     * @return the URI, or null for Cluster
     */
    public RedisURI uri() {
        return uri;
    }

    /**
     * A standalone client whose default URI is {@link #uri()}, for the stores that take no URI
     * (tokens, throttle); created once, shut down with this bean.
     *
     * @return the client; never null
     * @throws IllegalStateException if this is a Cluster connection
     */
    public synchronized RedisClient uriBoundClient() {
        if (isCluster()) {
            throw new IllegalStateException("a Cluster connection has no single URI");
        }
        if (uriBound == null) {
            uriBound = RedisClient.create(uri);
            if (options != null) {
                uriBound.setOptions(options);
            }
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
