package io.dupguard.lab.env;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * A Sentinel-managed Redis the lab starts itself on free loopback ports, for the Redis failover
 * faults — never the shared Sentinel setup of {@code scripts/services}: a master, two replicas
 * ({@code replicaof}) and three Sentinels ({@code redis-server --sentinel}, quorum 2, the master
 * judged down after 1 s), no persistence. Clients connect through the Sentinels ({@link #url()}),
 * so after a failover they reconnect to whichever node the Sentinels name.
 */
public final class LabRedisSentinel implements AutoCloseable {
    /** The master name the Sentinels monitor. */
    public static final String MASTER = "lab";

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final Path dir;
    private final Map<Integer, Process> data = new LinkedHashMap<>();
    private final List<Integer> sentinelPorts = new ArrayList<>();
    private final List<Process> sentinels = new ArrayList<>();
    private final RedisClient client = RedisClient.create();

    /**
     * Starts the nodes and Sentinels and waits until every Sentinel knows the master, both replicas
     * and the two other Sentinels, and both replicas are in sync.
     *
     * @throws IOException if {@code redis-server} does not start or the setup does not settle
     */
    public LabRedisSentinel() throws IOException {
        dir = Files.createTempDirectory("dupguard-lab-sentinel");
        try {
            int master = freePort();
            startData(master, List.of());
            List<Integer> replicas = List.of(freePort(), freePort());
            for (int replica : replicas) {
                startData(replica, List.of("--replicaof", "127.0.0.1", Integer.toString(master)));
            }
            Map<Integer, String> ids = new LinkedHashMap<>();
            for (int i = 0; i < 3; i++) {
                ids.put(freePort(), String.format("%040x", new BigInteger(160, ThreadLocalRandom.current())));
            }
            for (int port : ids.keySet()) {
                startSentinel(port, master, replicas, ids);
            }
            await("the Sentinels to agree on master, replicas and peers", this::settled);
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** {@code redis-sentinel://127.0.0.1:S1,127.0.0.1:S2,127.0.0.1:S3#lab}. */
    public String url() {
        StringBuilder b = new StringBuilder("redis-sentinel://");
        for (int i = 0; i < sentinelPorts.size(); i++) {
            b.append(i == 0 ? "" : ",").append("127.0.0.1:").append(sentinelPorts.get(i));
        }
        return b.append('#').append(MASTER).toString();
    }

    /** The master's port as the first Sentinel that answers sees it. */
    public int masterPort() {
        for (int port : sentinelPorts) {
            try (StatefulRedisSentinelConnection<String, String> s = client.connectSentinel(node(port))) {
                return ((InetSocketAddress) s.sync().getMasterAddrByName(MASTER)).getPort();
            } catch (RuntimeException e) {
                // ask the next one
            }
        }
        throw new IllegalStateException("no Sentinel answers");
    }

    /**
     * {@code SENTINEL FAILOVER}: an operator-requested failover with the master up — the Sentinels
     * promote the replica with the best replication offset at once (no write pause, no catch-up)
     * and turn the old master into a replica of it. Asks again while the Sentinel answers {@code
     * NOGOODSLAVE} (as an operator would): on a loaded machine its last view of the replicas can be
     * a moment too old to promote one. Waits until the Sentinels name the new master and it answers
     * as one.
     */
    public void failover() throws IOException {
        int old = masterPort();
        try (StatefulRedisSentinelConnection<String, String> s = client.connectSentinel(node(sentinelPorts.get(0)))) {
            await("a Sentinel that accepts SENTINEL FAILOVER of " + old, () -> {
                try {
                    s.sync().failover(MASTER);
                    return true;
                } catch (RedisCommandExecutionException e) {
                    if (String.valueOf(e.getMessage()).startsWith("NOGOODSLAVE")) {
                        return false;
                    }
                    throw e;
                }
            });
        }
        awaitNewMaster(old);
    }

    /**
     * Kills the master (SIGKILL, a crash); the Sentinels find it down after 1 s, agree (quorum 2) and
     * promote a replica. Waits until they name the new master and it answers as one. The old master
     * stays down.
     */
    public void killMaster() throws IOException {
        int old = masterPort();
        Process p = data.get(old);
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while killing the master", e);
        }
        awaitNewMaster(old);
    }

    private void awaitNewMaster(int old) throws IOException {
        await("a new master after failing over " + old, () -> {
            try {
                int now = masterPort();
                return now != old && role(now).equals("master");
            } catch (RuntimeException e) {
                return false;
            }
        });
    }

    private boolean settled() {
        for (int port : sentinelPorts) {
            if (!listening(port)) {
                return false; // not up yet: asked now, Lettuce would log a warning
            }
            try (StatefulRedisSentinelConnection<String, String> s = client.connectSentinel(node(port))) {
                Map<String, String> m = s.sync().master(MASTER);
                if (!"master".equals(m.get("flags"))
                        || !"2".equals(m.get("num-slaves"))
                        || !"2".equals(m.get("num-other-sentinels"))) {
                    return false;
                }
            } catch (RuntimeException e) {
                return false;
            }
        }
        int master = data.keySet().iterator().next();
        return info(master).contains("connected_slaves:2")
                && data.keySet().stream().skip(1).allMatch(p -> info(p).contains("master_link_status:up"));
    }

    private String role(int port) {
        try (StatefulRedisConnection<String, String> c = client.connect(node(port))) {
            return String.valueOf(c.sync().role().get(0));
        }
    }

    private String info(int port) {
        try (StatefulRedisConnection<String, String> c = client.connect(node(port))) {
            return c.sync().info("replication");
        } catch (RuntimeException e) {
            return "";
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static RedisURI node(int port) {
        RedisURI uri = RedisURI.create("127.0.0.1", port);
        uri.setTimeout(Duration.ofSeconds(2));
        return uri;
    }

    private void startData(int port, List<String> extra) throws IOException {
        Path own = Files.createDirectories(dir.resolve(Integer.toString(port)));
        List<String> command = LabRedisServer.command(port, own);
        // a replica's first sync at once: Redis otherwise waits 5 s for more replicas to share a diskless sync
        command.addAll(List.of("--appendonly", "no", "--repl-diskless-sync-delay", "0"));
        command.addAll(extra);
        data.put(port, start(command, own));
    }

    /**
     * A Sentinel that knows from its configuration its own id, both replicas and the other Sentinels
     * (as a Sentinel writes them into its file once it has found them): without them it would learn
     * the Sentinels from their hello messages, every 2 s, and the setup would take seconds longer.
     */
    private void startSentinel(int port, int master, List<Integer> replicas, Map<Integer, String> ids)
            throws IOException {
        Path own = Files.createDirectories(dir.resolve(Integer.toString(port)));
        Path conf = own.resolve("sentinel.conf");
        List<String> lines = new ArrayList<>(List.of(
                "port " + port,
                "bind 127.0.0.1",
                "dir " + own,
                "sentinel myid " + ids.get(port),
                "sentinel monitor " + MASTER + " 127.0.0.1 " + master + " 2",
                "sentinel down-after-milliseconds " + MASTER + " 1000",
                "sentinel failover-timeout " + MASTER + " 5000"));
        for (int replica : replicas) {
            lines.add("sentinel known-replica " + MASTER + " 127.0.0.1 " + replica);
        }
        ids.forEach((other, id) -> {
            if (other != port) {
                lines.add("sentinel known-sentinel " + MASTER + " 127.0.0.1 " + other + " " + id);
            }
        });
        Files.write(conf, lines);
        sentinelPorts.add(port);
        sentinels.add(start(List.of("redis-server", conf.toString(), "--sentinel"), own));
    }

    private static Process start(List<String> command, Path own) throws IOException {
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(own.resolve("redis.log").toFile())
                .start();
    }

    private void await(String what, BooleanSupplier done) throws IOException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("timed out waiting for " + what + "; see the logs under " + dir);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        }
    }

    /** Kills every node and Sentinel and deletes their directories. */
    @Override
    public void close() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        List<Process> all = new ArrayList<>(sentinels);
        all.addAll(data.values());
        for (Process p : all) {
            p.destroyForcibly();
        }
        for (Process p : all) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a temporary directory: left for the OS to clean
        }
    }
}
