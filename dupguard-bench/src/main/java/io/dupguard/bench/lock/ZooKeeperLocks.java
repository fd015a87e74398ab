package io.dupguard.bench.lock;

import io.dupguard.zookeeper.ZooKeeperLockProvider;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;

/**
 * ZooKeeper: dupguard's {@link ZooKeeperLockProvider} and Curator's {@link InterProcessMutex} used
 * directly, each on its own {@link CuratorFramework} (own session and connection), both against
 * one in-process {@link TestingServer} started for the run.
 */
final class ZooKeeperLocks implements Backend {
    static final String DUPGUARD = "dupguard ZooKeeperLockProvider";
    static final String CURATOR = "Curator InterProcessMutex";

    private static final String PACKETS = "zk_packets_received";

    private final TestingServer server;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<LockImpl> impls = new ArrayList<>();

    ZooKeeperLocks() throws Exception {
        // The audit reads the server's request counter through the "mntr" four-letter word.
        System.setProperty("zookeeper.4lw.commands.whitelist", "mntr");
        server = new TestingServer(true);
        try {
            impls.add(dupguard(client()));
            impls.add(curator(client()));
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    private CuratorFramework client() throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .sessionTimeoutMs(15_000)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .build();
        client.start();
        toClose.add(0, client);
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no ZooKeeper connection to " + server.getConnectString());
        }
        return client;
    }

    @Override
    public String title() {
        return "ZooKeeper";
    }

    @Override
    public String server() {
        // From the jar's manifest: org.apache.zookeeper.Version carries annotations that are not on the
        // class path, which -Xlint:all -Werror would turn into a build failure.
        String version = org.apache.zookeeper.ZooKeeper.class.getPackage().getImplementationVersion();
        return "ZooKeeper " + (version == null ? "?" : version)
                + " (in-process Curator TestingServer, same JVM as the clients)";
    }

    @Override
    public List<LockImpl> impls() {
        return impls;
    }

    private LockImpl dupguard(CuratorFramework client) {
        ZooKeeperLockProvider locks = ZooKeeperLockProvider.builder(client)
                .basePath("/bench/dupguard")
                .build();
        toClose.add(0, locks);
        return Impl.dupguard(
                DUPGUARD,
                "a fresh `InterProcessMutex` per acquisition (Curator's recipe with the create's `Stat` kept"
                        + " for the fence): acquire = create ephemeral-sequential node + list children (2 round"
                        + " trips when free); release = delete (1). Defaults: the session is the lease, 30 s wait.",
                "Curator's recipe: each waiter watches its predecessor node (FIFO across every JVM, no polling)",
                locks);
    }

    private LockImpl curator(CuratorFramework client) {
        return new Impl(
                CURATOR,
                LockImpl.Role.CEILING,
                "one `InterProcessMutex` per thread and name, reused: `acquire()` = create ephemeral-sequential"
                        + " node + list children (2 round trips when free); `release()` = delete (1).",
                "each waiter watches its predecessor node (FIFO across every JVM, no polling)",
                () -> {
                    Map<String, InterProcessMutex> mine = new HashMap<>();
                    return name -> {
                        InterProcessMutex m =
                                mine.computeIfAbsent(name, n -> new InterProcessMutex(client, "/bench/curator/" + n));
                        m.acquire();
                        return m::release;
                    };
                });
    }

    @Override
    public Audited audit(LockImpl measured) {
        return new Audited() {
            private long before;

            @Override
            public LockImpl impl() {
                return measured;
            }

            @Override
            public void start() throws IOException {
                before = packetsReceived();
            }

            @Override
            public Map<String, Long> stop() throws IOException {
                Map<String, Long> out = new TreeMap<>();
                out.put("requests", packetsReceived() - before);
                return out;
            }
        };
    }

    /** The server's count of requests received from every client (heartbeats included). */
    private long packetsReceived() throws IOException {
        try (Socket s = new Socket("127.0.0.1", server.getPort())) {
            OutputStream out = s.getOutputStream();
            out.write("mntr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            for (String line : text.split("\n")) {
                String[] kv = line.trim().split("\\s+");
                if (kv.length == 2 && kv[0].equals(PACKETS)) {
                    return Long.parseLong(kv[1]);
                }
            }
            throw new IOException("no " + PACKETS + " in the mntr answer: " + text);
        }
    }

    @Override
    public void close() {
        for (AutoCloseable c : toClose) {
            try {
                c.close();
            } catch (Exception e) {
                System.out.println("  closing a ZooKeeper client failed: " + e);
            }
        }
        toClose.clear();
        try {
            server.close();
        } catch (IOException e) {
            System.out.println("  stopping the ZooKeeper server failed: " + e);
        }
    }
}
