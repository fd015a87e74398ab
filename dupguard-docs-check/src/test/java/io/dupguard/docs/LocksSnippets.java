package io.dupguard.docs;

import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.memory.InMemoryLockProvider;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;

/** The snippets of docs/locks.md. */
class LocksSnippets {

    record Response(String status) {
        static Response alreadyProcessing() {
            return new Response("already processing");
        }

        static Response ok() {
            return new Response("ok");
        }
    }

    static Response overview(String orderId, long id, BigDecimal amount) {
        // tag::overview[]
        LockProvider locks = new InMemoryLockProvider();   // or JdbcLockProvider, RedisLockProvider, RedlockProvider, ZooKeeperLockProvider

        // Try-lock: fail fast, "already processing"
        Optional<Lease> lease = locks.tryAcquire("order:" + orderId, LockOptions.ofDefaults());
        if (lease.isEmpty()) return Response.alreadyProcessing();
        try (Lease l = lease.get()) { pay(orderId); }

        // Blocking acquire with a wait limit: serialise account operations
        try (Lease l = locks.acquire("account:" + id, LockOptions.custom().waitTime(Duration.ofSeconds(2)).build())) {
            credit(id, amount, l.fencingToken());           // LockUnavailableException after 2 s
        }
        // end::overview[]
        return Response.ok();
    }

    static void pay(String orderId) {}

    static void credit(long accountId, BigDecimal amount, long fencingToken) {}
}
