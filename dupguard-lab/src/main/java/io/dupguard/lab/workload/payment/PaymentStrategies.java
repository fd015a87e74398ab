package io.dupguard.lab.workload.payment;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.jdbc.JdbcTransactionalIdempotency;
import io.dupguard.lab.env.ReplicaTarget;
import io.dupguard.lab.storm.Service;
import io.dupguard.lab.workload.LabIdempotency;
import io.dupguard.memory.InMemoryIdempotencyStore;
import io.dupguard.redis.RedisIdempotencyStore;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;

/** The strategies of the payment workload, from "charge every time" to dupguard. */
final class PaymentStrategies {
    static final String SCOPE = "payments";

    private PaymentStrategies() {}

    static IdempotencyKey key(Payment p) {
        return IdempotencyKey.of(SCOPE, p.requestId());
    }

    /** Same request id with a different account or amount ⇒ {@code PayloadMismatchException} (K3). */
    static Fingerprint fingerprint(Payment p) {
        return Fingerprint.ofFields(Map.of("account", p.account(), "amount", p.amount()));
    }

    /** No protection: every attempt charges. */
    static final class None implements PaymentStrategy {
        private final ChargeTable table;

        None(Context ctx) {
            this.table = ctx.table();
        }

        @Override
        public long charge(Payment p, Service service) throws SQLException {
            service.pause();
            return table.insert(p);
        }
    }

    /** Look for a charge with the request id, charge if none: races exactly like naive services do. */
    static final class SelectThenInsert implements PaymentStrategy {
        private final ChargeTable table;

        SelectThenInsert(Context ctx) {
            this.table = ctx.table();
        }

        @Override
        public long charge(Payment p, Service service) throws SQLException {
            Long id = table.findId(p.requestId());
            if (id != null) {
                return id; // a tampered duplicate is answered with the first charge: silent success
            }
            service.pause();
            return table.insert(p);
        }
    }

    /**
     * Seed 002 §3 (guarantee K7): the duplicate check reads the standby (reads are "cheap" there), the
     * charge goes to the primary. A standby that has not replayed the first charge yet says "not
     * charged", and the retry charges again; the plain select-then-insert race comes on top.
     */
    static final class ReplicaCheck implements PaymentStrategy {
        private final ChargeTable table;
        private final DataSource replica;

        ReplicaCheck(Context ctx) throws SQLException {
            this.table = ctx.table();
            ReplicaTarget standby = ctx.env()
                    .replica()
                    .orElseThrow(() -> new IllegalStateException("replica-check needs --jdbc-replica-url"));
            standby.awaitReplayed(ctx.env().dataSource()); // the standby has the fresh table
            this.replica = standby.dataSource();
        }

        @Override
        public long charge(Payment p, Service service) throws SQLException {
            Long id = table.findId(replica, p.requestId());
            if (id != null) {
                return id;
            }
            service.pause();
            return table.insert(p);
        }
    }

    /** dupguard {@link Idempotency} over any store; the charge runs inside the work. */
    static final class IdempotencyOver implements PaymentStrategy {
        private final ChargeTable table;
        private final Idempotency idempotency;
        private final Runnable onClose;

        IdempotencyOver(Context ctx, IdempotencyStore store, Runnable onClose) {
            this.table = ctx.table();
            this.idempotency = Idempotency.of(store, LabIdempotency.CONFIG);
            this.onClose = onClose;
        }

        static IdempotencyOver memory(Context ctx) {
            return new IdempotencyOver(ctx, new InMemoryIdempotencyStore(), () -> {});
        }

        static IdempotencyOver jdbc(Context ctx) throws SQLException {
            return new IdempotencyOver(
                    ctx, LabIdempotency.freshJdbcStore(ctx.env(), ctx.tablePrefix() + "idem"), () -> {});
        }

        static IdempotencyOver redis(Context ctx) {
            RedisIdempotencyStore store = ctx.env()
                    .redis()
                    .orElseThrow(() -> new IllegalStateException("idempotency-redis needs --redis-url"))
                    .newIdempotencyStore(LabIdempotency.redisPrefix(ctx.env(), PaymentWorkload.NAME));
            return new IdempotencyOver(ctx, store, store::close);
        }

        @Override
        public long charge(Payment p, Service service) throws SQLException {
            return run(p, () -> {
                service.pause();
                return table.insert(p);
            });
        }

        /** {@code work} once per request id, as this executor's store records it. */
        long run(Payment p, IdempotentWork<Long, SQLException> work) throws SQLException {
            return idempotency.execute(key(p), fingerprint(p), Long.class, work).value();
        }

        @Override
        public void close() {
            onClose.run();
        }
    }

    /**
     * Claim, charge row and record commit in one transaction ({@link JdbcTransactionalIdempotency}).
     * The slow part runs before the transaction opens: no remote call inside a transaction (R5).
     */
    static final class Transactional implements PaymentStrategy {
        private final ChargeTable table;
        private final JdbcTransactionalIdempotency tx;

        Transactional(Context ctx) throws SQLException {
            this.table = ctx.table();
            this.tx = JdbcTransactionalIdempotency.of(
                    LabIdempotency.freshJdbcStore(ctx.env(), ctx.tablePrefix() + "idem"), LabIdempotency.CONFIG);
        }

        @Override
        public long charge(Payment p, Service service) throws SQLException {
            service.pause();
            return tx.executeInTransaction(key(p), fingerprint(p), Long.class, c -> table.insert(c, p))
                    .value();
        }
    }

    /**
     * The starter's default with Redis ({@code dupguard.record-mode=backstop}): Redis claims first
     * and rejects or replays fast; inside its claim the charge row and the JDBC record commit in one
     * transaction ({@link JdbcTransactionalIdempotency}), which decides when Redis lost the key (a
     * failover, a restart): the retry then finds the committed row and replays it.
     */
    static final class Backstop implements PaymentStrategy {
        private final IdempotencyOver front;
        private final Transactional rows;

        Backstop(Context ctx) throws SQLException {
            this.front = IdempotencyOver.redis(ctx);
            this.rows = new Transactional(ctx);
        }

        @Override
        public long charge(Payment p, Service service) throws SQLException {
            return front.run(p, () -> rows.charge(p, service));
        }

        @Override
        public void close() {
            front.close();
        }
    }
}
