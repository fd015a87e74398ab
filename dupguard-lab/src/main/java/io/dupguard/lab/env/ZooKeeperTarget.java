package io.dupguard.lab.env;

import io.dupguard.zookeeper.ZooKeeperLockProvider;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * The ZooKeeper of {@code --zookeeper}: a connect string ({@code host:port[,host:port…]}), or
 * {@code embedded} for an in-process server ({@code curator-test}'s {@code TestingServer} on a
 * free loopback port and a temporary directory, gone when the storm ends). The lab never starts a
 * server unless asked: without the option, the ZooKeeper strategies are left out.
 */
public final class ZooKeeperTarget implements AutoCloseable {
    /** The option value that starts an in-process server. */
    public static final String EMBEDDED = "embedded";

    private static final int SESSION_TIMEOUT_MS = 10_000;
    private static final int CONNECT_TIMEOUT_SECONDS = 5;

    private final TestingServer server;
    private final CuratorFramework client;
    private final String label;

    private ZooKeeperTarget(TestingServer server, CuratorFramework client, String label) {
        this.server = server;
        this.client = client;
        this.label = label;
    }

    /**
     * Starts the embedded server if asked, then connects.
     *
     * @throws UnreachableException naming the address if no connection comes up within seconds
     */
    static ZooKeeperTarget connect(String spec) {
        TestingServer server = null;
        String connect = spec.trim();
        String label = "ZooKeeper " + connect;
        if (EMBEDDED.equals(connect)) {
            try {
                // No fsync of the transaction log: a throwaway server, and fsync on a busy disk made every
                // lock operation of the storm wait for the disk.
                InstanceSpec instance = new InstanceSpec(null, -1, -1, -1, true, -1, -1, -1, Map.of("forceSync", "no"));
                server = new TestingServer(instance, true);
            } catch (Exception e) {
                throw new UnreachableException(
                        "cannot start the embedded ZooKeeper: " + UnreachableException.rootMessage(e), e);
            }
            connect = server.getConnectString();
            label = "ZooKeeper (embedded, " + connect + ")";
        }
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs(SESSION_TIMEOUT_MS)
                .connectionTimeoutMs(CONNECT_TIMEOUT_SECONDS * 1000)
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .build();
        client.start();
        boolean connected;
        try {
            connected = client.blockUntilConnected(CONNECT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            connected = false;
        }
        if (!connected) {
            client.close();
            stop(server);
            throw new UnreachableException(
                    "cannot reach --zookeeper " + spec + " within " + CONNECT_TIMEOUT_SECONDS + " s", null);
        }
        return new ZooKeeperTarget(server, client, label);
    }

    /** A new provider under {@code basePath}; the caller closes it (the client stays open). */
    public ZooKeeperLockProvider newLockProvider(String basePath) {
        return ZooKeeperLockProvider.builder(client).basePath(basePath).build();
    }

    /** What the report calls it. */
    public String label() {
        return label;
    }

    @Override
    public void close() {
        try {
            client.close();
        } finally {
            stop(server);
        }
    }

    private static void stop(TestingServer server) {
        if (server == null) {
            return;
        }
        try {
            server.close();
        } catch (IOException e) {
            // The process is ending the storm; a temporary directory left behind is all this costs.
        }
    }
}
