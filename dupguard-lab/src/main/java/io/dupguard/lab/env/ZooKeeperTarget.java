package io.dupguard.lab.env;

import io.dupguard.zookeeper.ZooKeeperLockProvider;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.KillSession;
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
    /**
     * A second instance's session: as short as the lab's leases ({@code LabIdempotency.LEASE}), so
     * the server expires a crashed instance's session — and deletes its lock nodes — within a storm.
     * The server may raise it to its minimum, 2 × tickTime.
     */
    static final int INSTANCE_SESSION_TIMEOUT_MS = 2_000;

    private static final int CONNECT_TIMEOUT_SECONDS = 5;

    private final TestingServer server; // null: a server this process did not start
    private final CuratorFramework client;
    private final String connect;
    private final String label;

    private ZooKeeperTarget(TestingServer server, CuratorFramework client, String connect, String label) {
        this.server = server;
        this.client = client;
        this.connect = connect;
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
        CuratorFramework client;
        try {
            client = session(connect, SESSION_TIMEOUT_MS, spec);
        } catch (UnreachableException e) {
            stop(server);
            throw e;
        }
        return new ZooKeeperTarget(server, client, connect, label);
    }

    /**
     * A second application instance's own session on the same server ({@code instance-crash}),
     * with a {@value #INSTANCE_SESSION_TIMEOUT_MS} ms session timeout; closing it leaves the server
     * running.
     */
    ZooKeeperTarget instance() {
        return new ZooKeeperTarget(null, session(connect, INSTANCE_SESSION_TIMEOUT_MS, connect), connect, label);
    }

    /** A started client, connected within seconds, or an {@link UnreachableException} naming {@code shown}. */
    private static CuratorFramework session(String connect, int sessionTimeoutMs, String shown) {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs(sessionTimeoutMs)
                .connectionTimeoutMs(Math.min(CONNECT_TIMEOUT_SECONDS * 1000, sessionTimeoutMs))
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
            throw new UnreachableException(
                    "cannot reach --zookeeper " + shown + " within " + CONNECT_TIMEOUT_SECONDS + " s", null);
        }
        return client;
    }

    /**
     * The process dies: its session is dropped on the client side without being closed ({@link
     * KillSession}), so nothing deletes its lock nodes but the server, once the session times out;
     * then the client stops (no new session, no lease timer's delete gets through).
     */
    void crash() {
        try {
            KillSession.kill(client.getZookeeperClient().getZooKeeper());
        } catch (Exception e) {
            // no live session to drop: the server expires whatever it had
        } finally {
            client.close();
        }
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
