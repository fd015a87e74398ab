package io.dupguard.lab.env;

import io.dupguard.zookeeper.ZooKeeperLockProvider;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
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
    private final List<LoopbackRelay> relays; // an instance's way to the servers, cut when it crashes

    private ZooKeeperTarget(
            TestingServer server, CuratorFramework client, String connect, String label, List<LoopbackRelay> relays) {
        this.server = server;
        this.client = client;
        this.connect = connect;
        this.label = label;
        this.relays = relays;
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
        return new ZooKeeperTarget(server, client, connect, label, List.of());
    }

    /**
     * A second application instance's own session on the same servers ({@code instance-crash}),
     * with a {@value #INSTANCE_SESSION_TIMEOUT_MS} ms session timeout, reaching each server through
     * a {@link LoopbackRelay} that {@link #crash()} cuts; closing it leaves the servers running.
     */
    ZooKeeperTarget instance() {
        List<LoopbackRelay> relays = new ArrayList<>();
        try {
            int chroot = connect.indexOf('/');
            String hosts = chroot < 0 ? connect : connect.substring(0, chroot);
            StringJoiner relayed = new StringJoiner(",", "", chroot < 0 ? "" : connect.substring(chroot));
            for (String hostPort : hosts.split(",")) {
                int colon = hostPort.lastIndexOf(':');
                String host = colon < 0
                        ? hostPort.trim()
                        : hostPort.substring(0, colon).trim();
                int port = colon < 0
                        ? 2181
                        : Integer.parseInt(hostPort.substring(colon + 1).trim());
                LoopbackRelay relay = LoopbackRelay.to(host, port);
                relays.add(relay);
                relayed.add(relay.address());
            }
            CuratorFramework own = session(relayed.toString(), INSTANCE_SESSION_TIMEOUT_MS, connect);
            return new ZooKeeperTarget(null, own, connect, label, List.copyOf(relays));
        } catch (IOException | RuntimeException e) {
            relays.forEach(LoopbackRelay::cut);
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw new UnreachableException("cannot relay to --zookeeper " + connect + ": " + e.getMessage(), e);
        }
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
     * The process dies: its connections to the servers are reset and nothing it sends afterwards
     * gets through (the relays are cut), so its session is never closed and no lock node of it is
     * deleted — not by a release, a lease timer or a reconnect — until the server expires the
     * session. Then the client stops.
     *
     * <p>Not Curator's {@code KillSession}: that expires the session on the client side only, and
     * Curator at once opens a new session, through which the dead instance's provider deleted its
     * lock nodes — a release a dead process cannot make, letting the survivors in early.
     */
    void crash() {
        relays.forEach(LoopbackRelay::cut);
        client.close();
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
            relays.forEach(LoopbackRelay::cut);
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
