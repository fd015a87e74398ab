package io.dupguard.lab.workload.order;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Effects;
import io.dupguard.lab.storm.Refused;
import io.dupguard.lab.storm.Request;
import io.dupguard.lab.storm.Sent;
import io.dupguard.lab.storm.Service;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.StrategyCatalog;
import io.dupguard.lab.storm.Trial;
import io.dupguard.lab.storm.Workload;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Seed 002 §6.1 (guarantees E1, O3, R1–R5): the user pays an order; the payment platform is slow,
 * sometimes loses its answer after charging, times out, is busy or declines. Duplicates arrive
 * while the payment runs and after it finished. After the storm the service's retry job works off
 * its retry log; then the checker compares every order with the platform's ledger.
 */
public final class OrderPaymentWorkload implements Workload {
    public static final String NAME = "order-payment";

    /** How often the retry job goes through its log before the check (stepped retries, R2). */
    static final int RETRY_ROUNDS = 3;

    private static final Service NO_PAUSE = () -> {};

    private static final StrategyCatalog<OrderStrategy.Context, OrderStrategy> CATALOG = new StrategyCatalog<
                    OrderStrategy.Context, OrderStrategy>()
            .add(
                    Strategy.naive(
                            "read-then-update",
                            "read the status, unguarded UPDATEs, no lock; retryable failure => FAIL, then pay again"),
                    OrderStrategies.ReadThenUpdate::new)
            .add(
                    Strategy.dupguard(
                            "lock-and-transitions",
                            "try-lock (JdbcLockProvider), READY->PAYING->SUCCESS|FAIL with JdbcTransitions;"
                                    + " a resumed payment asks the platform first"),
                    OrderStrategies.LockAndTransitions::new)
            .add(
                    Strategy.dupguard(
                            "retry-log",
                            "lock-and-transitions run through dupguard's RetryLog: a retryable platform error is"
                                    + " a task the workers finish; a decline blocks it and alerts"),
                    RetryLogPayments::new);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "pay an order once on a flaky payment platform; duplicates answered 'already processing' or"
                + " 'already paid' (E1)";
    }

    @Override
    public List<Strategy> strategies() {
        return CATALOG.strategies();
    }

    /**
     * Not under {@code instance-crash}: nothing in the naive design resumes an order a dead instance
     * left PAYING (see {@link #notSharedBecause}), so the checker's "no order left PAYING" would fail
     * for a recovery job the workload does not have, not for a duplicate or a lost answer.
     */
    @Override
    public String notSharedBecause(Strategy strategy) {
        return "an order a dead instance left PAYING is resumed by nothing: RetryLog.run records only failures,"
                + " the retry job works only off the retry log, and the clients' 3 attempts end within the order"
                + " lock's lease (30 s watchdog); the naive design has no sweep of stale PAYING orders: not run";
    }

    @Override
    public Trial open(Strategy strategy, LabEnvironment env) throws Exception {
        String name = "dupguard_lab_order_" + strategy.name().replace('-', '_');
        OrderTable orders = new OrderTable(env, name);
        orders.recreate(env.sql());
        PaymentPlatform platform = new PaymentPlatform(env, name + "_ledger");
        OrderStrategy impl = CATALOG.create(strategy, new OrderStrategy.Context(env, orders, platform, name + "_"));
        return new OrderTrial(orders, platform, impl, new ConcurrentHashMap<>());
    }

    private record OrderTrial(
            OrderTable orders, PaymentPlatform platform, OrderStrategy strategy, Map<String, Pay> requests)
            implements Trial {

        /**
         * The order exists, READY, before the user presses Pay. A create that fails under a fault is
         * an error page; the client asks again for the same order, which is created at most once.
         */
        @Override
        public Request newRequest(int client, long seq, SplittableRandom random) throws SQLException {
            Pay drawn = new Pay(
                    String.format("ord-%03d-%07d", client, seq),
                    100 + random.nextLong(100_000),
                    PlatformScript.draw(random.nextDouble()));
            Pay p = requests.computeIfAbsent(drawn.orderId(), id -> drawn);
            orders.create(p);
            return p;
        }

        @Override
        public Object serve(Request request, Service service) throws Exception {
            return strategy.pay((Pay) request, service);
        }

        @Override
        public void close() {
            strategy.close();
        }

        /** "Pending" is provisional: whatever the payment later became completes it. */
        @Override
        public boolean answersAgree(Object first, Object later) {
            return ((PayAnswer) first).outcome() == PayAnswer.Outcome.PENDING || first.equals(later);
        }

        /** The retry job (R1, R4): the same handler, for every order in the retry log. */
        @Override
        public void settle() throws Exception {
            if (strategy.settlesItself()) {
                strategy.settle();
                return;
            }
            for (int round = 0; round < RETRY_ROUNDS; round++) {
                List<String> due = orders.retries();
                if (due.isEmpty()) {
                    return;
                }
                for (String id : due) {
                    try {
                        if (strategy.pay(requests.get(id), NO_PAUSE).outcome() != PayAnswer.Outcome.PENDING) {
                            orders.retried(id);
                        }
                    } catch (Refused e) {
                        // still failing retryably (or held): the next round tries again
                    }
                }
            }
        }

        @Override
        public Effects check(List<Sent> ledger) throws SQLException {
            Effects e = OrderCheck.check(orders, platform, ledger);
            List<String> violations = new java.util.ArrayList<>(e.violations());
            violations.addAll(strategy.violations());
            Map<String, Long> metrics = new java.util.LinkedHashMap<>(e.metrics());
            metrics.putAll(strategy.metrics());
            return new Effects(e.duplicateEffects(), e.lost(), e.tamperedCharged(), e.evidence(), violations, metrics);
        }
    }
}
