package io.dupguard.lab.workload.order;

import io.dupguard.jdbc.JdbcTransitions;
import io.dupguard.lab.storm.Refused;
import io.dupguard.lab.storm.Service;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockProvider;
import io.dupguard.state.TransitionResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.OptionalLong;

/** The strategies of the order-payment workload: a status check without guards, and the usual status machine. */
final class OrderStrategies {
    private OrderStrategies() {}

    /**
     * Reads the status and acts on it with unguarded updates, no lock. A retryable platform failure
     * marks the order FAIL and logs a retry (a typical handleException), and a FAIL order is
     * paid again — without asking the platform whether the timed-out call charged.
     */
    static final class ReadThenUpdate implements OrderStrategy {
        private final OrderTable orders;
        private final PaymentPlatform platform;

        ReadThenUpdate(Context ctx) {
            this.orders = ctx.orders();
            this.platform = ctx.platform();
        }

        @Override
        public PayAnswer pay(Pay p, Service service) throws Exception {
            OrderTable.Order order = orders.find(p.orderId());
            if (order.status() == OrderStatus.SUCCESS) {
                return PayAnswer.paid(order.chargeId()); // already paid
            }
            if (order.status() == OrderStatus.PAYING) {
                throw new Refused("order " + p.orderId() + " is already processing");
            }
            orders.setStatus(p.orderId(), OrderStatus.PAYING, null);
            long chargeId;
            try {
                chargeId = platform.charge(p, service);
            } catch (PlatformException e) {
                orders.setStatus(p.orderId(), OrderStatus.FAIL, null);
                if (e.retryable()) {
                    orders.logRetry(p.orderId(), e.getMessage());
                    throw new Refused("payment failed, may be retried: " + e.getMessage());
                }
                return PayAnswer.declined();
            }
            orders.setStatus(p.orderId(), OrderStatus.SUCCESS, chargeId);
            return PayAnswer.paid(chargeId);
        }
    }

    /**
     * Seed 002 §6.1 with dupguard: try-lock on the order (fail ⇒ "already processing"), READY →
     * PAYING with {@link JdbcTransitions}, the platform call outside any transaction (R5), PAYING →
     * SUCCESS with the charge id or → FAIL for a decline, release in {@code finally}. A retryable
     * failure — of the platform, or of the database under the lock — leaves the order PAYING (or
     * READY) and logs a retry; whoever resumes a PAYING order — a client
     * retry or the retry job, running this same code — first asks the platform whether the earlier
     * call charged.
     */
    static final class LockAndTransitions implements OrderStrategy {
        private final OrderTable orders;
        private final PaymentPlatform platform;
        private final LockProvider locks;
        private final JdbcTransitions<OrderStatus> transitions;

        LockAndTransitions(Context ctx) throws SQLException {
            this.orders = ctx.orders();
            this.platform = ctx.platform();
            this.locks = ctx.env().newLockProvider(ctx.tablePrefix() + "locks");
            this.transitions = JdbcTransitions.of(OrderStatus.MACHINE, orders.name, "id", "status");
        }

        /** The order locks; acquisitions are reentrant per thread. */
        LockProvider locks() {
            return locks;
        }

        @Override
        public PayAnswer pay(Pay p, Service service) throws Exception {
            Optional<Lease> lease = locks.tryAcquire("order:" + p.orderId());
            if (lease.isEmpty()) {
                throw new Refused("order " + p.orderId() + " is already processing");
            }
            try {
                return payLocked(p, service);
            } catch (SQLException e) {
                // A store error is as retryable as the platform's: it may leave the order PAYING, and
                // without a retry only a later attempt of the user would resume it.
                try {
                    orders.logRetry(p.orderId(), "store error " + e.getSQLState());
                } catch (SQLException again) {
                    e.addSuppressed(again);
                }
                throw e;
            } finally {
                lease.get().close();
            }
        }

        private PayAnswer payLocked(Pay p, Service service) throws SQLException {
            TransitionResult<OrderStatus> started = transition(p, OrderStatus.READY, OrderStatus.PAYING, null);
            if (started instanceof TransitionResult.Rejected<OrderStatus> r) {
                return finished(p, r.current()); // already paid, or already declined
            }
            // AlreadyApplied: an earlier attempt left it PAYING, so it may have charged.
            OptionalLong earlier = started.applied() ? OptionalLong.empty() : platform.find(p.orderId());
            long chargeId;
            try {
                chargeId = earlier.isPresent() ? earlier.getAsLong() : platform.charge(p, service);
            } catch (PlatformException e) {
                if (e.retryable()) {
                    orders.logRetry(p.orderId(), e.getMessage());
                    return PayAnswer.pending();
                }
                complete(p, OrderStatus.FAIL, null);
                return PayAnswer.declined();
            }
            complete(p, OrderStatus.SUCCESS, chargeId);
            return PayAnswer.paid(chargeId);
        }

        private PayAnswer finished(Pay p, OrderStatus status) throws SQLException {
            if (status == OrderStatus.SUCCESS) {
                return PayAnswer.paid(orders.find(p.orderId()).chargeId());
            }
            if (status == OrderStatus.FAIL) {
                return PayAnswer.declined();
            }
            throw new IllegalStateException("order " + p.orderId() + " is " + status);
        }

        private void complete(Pay p, OrderStatus to, Long chargeId) throws SQLException {
            TransitionResult<OrderStatus> r = transition(p, OrderStatus.PAYING, to, chargeId);
            if (!r.applied()) {
                throw new IllegalStateException("order " + p.orderId() + " left PAYING under our lock: " + r);
            }
        }

        private TransitionResult<OrderStatus> transition(Pay p, OrderStatus from, OrderStatus to, Long chargeId)
                throws SQLException {
            try (Connection c = orders.dataSource.getConnection()) {
                return chargeId == null
                        ? transitions.apply(c, p.orderId(), from, to)
                        : transitions.apply(c, p.orderId(), from, to, "charge_id = ?", chargeId);
            }
        }
    }
}
