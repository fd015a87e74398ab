package io.dupguard.zookeeper;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/** An in-process ZooKeeper server and clients on it, each client standing in for one machine. */
final class ZooKeeperFixtures {
    /** Session timeout of ordinary clients: long, so a busy 2-core build never expires one. */
    static final Duration SESSION = Duration.ofSeconds(20);
    /** Session timeout of clients whose session a test kills: the server expires it this fast. */
    static final Duration SHORT_SESSION = Duration.ofMillis(1500);

    private ZooKeeperFixtures() {}

    /**
     * A started server with a 200 ms tick, so sessions may be as short as 200 ms and up to 60 s
     * (ZooKeeper's default range is 2–20 ticks).
     */
    static TestingServer startServer() throws Exception {
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, 200, -1, Map.of("maxSessionTimeout", "60000"));
        return new TestingServer(spec, true);
    }

    /** A started client with its own session. */
    static CuratorFramework client(TestingServer server, Duration sessionTimeout) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .sessionTimeoutMs((int) sessionTimeout.toMillis())
                .connectionTimeoutMs((int) Math.min(10_000, sessionTimeout.toMillis()))
                .retryPolicy(new ExponentialBackoffRetry(50, 5))
                .build();
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            client.close();
            throw new IllegalStateException("could not connect to " + server.getConnectString());
        }
        return client;
    }

    /**
     * A started client for a port nobody listens on, without retries: every operation gives up
     * after one connection timeout.
     */
    static CuratorFramework unreachableClient(Duration connectionTimeout) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString("127.0.0.1:" + port)
                .sessionTimeoutMs(5_000)
                .connectionTimeoutMs((int) connectionTimeout.toMillis())
                .retryPolicy(new RetryNTimes(0, 0))
                .build();
        client.start();
        return client;
    }
}
