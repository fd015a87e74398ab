package io.dupguard.docs;

import static io.dupguard.docs.DocFixtures.ACCOUNTS;

import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.zookeeper.ZooKeeperLockProvider;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/** The snippets of docs/locks-zookeeper.md. */
class LocksZookeeperSnippets {

    static void overview(Connection connection, long accountId, BigDecimal newBalance, long orderId)
            throws SQLException {
        // tag::overview[]
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString("zk1:2181,zk2:2181,zk3:2181")
                .sessionTimeoutMs(15_000)          // how long a crashed holder's lock survives it
                .connectionTimeoutMs(5_000)        // how long a call waits for a connection before failing
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .build();
        client.start();                            // the client is yours: start it and close it

        ZooKeeperLockProvider locks = ZooKeeperLockProvider.builder(client)
                .basePath("/billing/locks")        // default /dupguard/locks
                .build();

        try (Lease lease = locks.acquire("account:" + accountId, LockOptions.ofDefaults())) {
            ACCOUNTS.update(connection, accountId, lease.fencingToken(), "balance = ?", newBalance);
        }
        Optional<Lease> lease = locks.tryAcquire("order/" + orderId);   // '/' and emoji are fine in names
        // end::overview[]
    }
}
