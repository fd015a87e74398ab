package io.dupguard.zookeeper;

import io.dupguard.lock.LockProvider;
import io.dupguard.test.AbstractLockProviderContractTest;
import io.dupguard.test.StoreOutage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The lock contract on a real (in-process) ZooKeeper server; each machine has its own client and
 * so its own session.
 *
 * <p>The shared tests that abandon a fixed lease ({@code crashedHoldersLockFreesAtExpiry}, {@code
 * closeAfterExpiryDoesNotReleaseTheNewHolder}, {@code pausedHoldersFencedWriteIsRejected}) run
 * unchanged: a fixed lease is enforced by the holder's own timer, which deletes the lock node when
 * the lease runs out. Their ZooKeeper-faithful counterparts, where the holder's session dies,
 * are in {@link ZooKeeperSessionIT}.
 */
class ZooKeeperLockProviderIT extends AbstractLockProviderContractTest {
    static final Duration OUTAGE_SESSION = Duration.ofSeconds(3);
    private static TestingServer server;
    private static final CuratorFramework[] clients = new CuratorFramework[3];
    private static final ZooKeeperLockProvider[] machines = new ZooKeeperLockProvider[3];

    @BeforeAll
    static void startZooKeeper() throws Exception {
        server = ZooKeeperFixtures.startServer();
        for (int i = 0; i < 3; i++) {
            clients[i] = ZooKeeperFixtures.client(server, ZooKeeperFixtures.SESSION);
            machines[i] = ZooKeeperLockProvider.create(clients[i]);
        }
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        for (int i = 0; i < 3; i++) {
            if (machines[i] != null) {
                machines[i].close();
            }
            if (clients[i] != null) {
                clients[i].close();
            }
        }
        if (server != null) {
            server.close();
        }
    }

    private static TestingServer pausable;
    private static final CuratorFramework[] PAUSABLE_CLIENTS = new CuratorFramework[2];
    private static final ZooKeeperLockProvider[] PAUSABLE = new ZooKeeperLockProvider[2];
    private static final ExecutorService RESTARTER = Executors.newSingleThreadExecutor();

    /**
     * A second server that the outage stops and restarts on the same port (the session is the
     * lease here: 3 s, so a 1.2 s blip is survived and a 4 s outage loses it).
     */
    @BeforeAll
    static void startPausable() throws Exception {
        pausable = ZooKeeperFixtures.startServer();
        for (int i = 0; i < 2; i++) {
            PAUSABLE_CLIENTS[i] = ZooKeeperFixtures.client(pausable, OUTAGE_SESSION);
            PAUSABLE[i] = ZooKeeperLockProvider.create(PAUSABLE_CLIENTS[i]);
        }
    }

    @AfterAll
    static void stopPausable() throws Exception {
        RESTARTER.shutdownNow();
        for (int i = 0; i < 2; i++) {
            PAUSABLE[i].close();
            PAUSABLE_CLIENTS[i].close();
        }
        pausable.close();
    }

    @Override
    protected StoreOutage.Fixture<LockProvider> outageFixture() {
        return new StoreOutage.Fixture<>(PAUSABLE[0], PAUSABLE[1], d -> {
            try {
                pausable.stop();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            RESTARTER.execute(() -> {
                try {
                    TimeUnit.NANOSECONDS.sleep(d.toNanos()); // the outage itself
                    pausable.restart();
                } catch (Exception e) {
                    throw new IllegalStateException("could not restart ZooKeeper", e);
                }
            });
        });
    }

    @Override
    protected LockProvider provider() {
        return machines[0];
    }

    @Override
    protected LockProvider machine(int i) {
        return machines[i];
    }
}
