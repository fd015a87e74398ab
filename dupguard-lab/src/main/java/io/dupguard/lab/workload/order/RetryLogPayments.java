package io.dupguard.lab.workload.order;

import io.dupguard.jdbc.JdbcRetryStore;
import io.dupguard.lab.storm.Refused;
import io.dupguard.lab.storm.Service;
import io.dupguard.lab.workload.LabRetries;
import io.dupguard.lock.Lease;
import io.dupguard.retry.NonRetryableException;
import io.dupguard.retry.RetryConfig;
import io.dupguard.retry.RetryLog;
import io.dupguard.retry.RetrySchedule;
import io.dupguard.retry.RetryStats;
import io.dupguard.retry.RunResult;
import io.dupguard.retry.TaskOptions;
import io.dupguard.retry.TaskState;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Seed 002 §6.1 through dupguard's retry log (guarantees E1, R1–R6): the request runs the payment step
 * ({@link OrderStrategies.LockAndTransitions}: try-lock, READY → PAYING, platform call, PAYING →
 * SUCCESS | FAIL) inline through {@link RetryLog#run}; a retryable platform error is recorded as a
 * task (dedup key = order id) and the log's workers run the very same handler later; a decline
 * blocks the task and alerts. Payment is money: the first failure alerts too.
 */
final class RetryLogPayments implements OrderStrategy {
    static final String TYPE = "order.pay";
    private static final Service NO_PAUSE = () -> {};

    private final OrderTable orders;
    private final OrderStrategies.LockAndTransitions payment;
    private final JdbcRetryStore store;
    private final RetryLog retries;
    private final ThreadLocal<Service> pause = new ThreadLocal<>();
    private final AtomicLong blockedAlerts = new AtomicLong();
    private final AtomicLong moneyAlerts = new AtomicLong();

    RetryLogPayments(Context ctx) throws SQLException {
        this.orders = ctx.orders();
        this.payment = new OrderStrategies.LockAndTransitions(ctx);
        String table = ctx.tablePrefix() + "tasks";
        try (Connection c = ctx.env().dataSource().getConnection();
                Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
        }
        this.store = JdbcRetryStore.builder(ctx.env().dataSource())
                .tableName(table)
                .createSchemaIfMissing(true)
                .build();
        this.retries = RetryLog.builder(store)
                .handler(
                        TYPE,
                        task -> {
                            Service s = pause.get();
                            handle(decode(task.payloadText()), s == null ? NO_PAUSE : s);
                        },
                        TaskOptions.custom()
                                .schedule(RetrySchedule.steppedBuilder()
                                        .steps(Duration.ofMillis(20), Duration.ofMillis(50), Duration.ofMillis(100))
                                        .maxAttempts(8)
                                        .build())
                                .moneyRelated(true)
                                .build())
                .config(RetryConfig.custom()
                        .workers(2)
                        .pollInterval(Duration.ofMillis(100))
                        .alertSink(a -> (a.blocked() ? blockedAlerts : moneyAlerts).incrementAndGet())
                        .build())
                .build()
                .start();
    }

    /** The one payment step (R4): returns when paid; throws to be retried or, for a decline, blocked. */
    private void handle(Pay p, Service service) throws Exception {
        PayAnswer a = payment.pay(p, service);
        switch (a.outcome()) {
            case PAID -> {}
            case PENDING -> throw new PlatformException("payment platform failed retryably", true);
            case DECLINED -> throw new NonRetryableException("payment declined for order " + p.orderId());
        }
    }

    /**
     * Holds the order's lock across the inline run and the answer (the handler's own acquisition is
     * reentrant), so no worker or duplicate finishes the order between a failed platform call and
     * the answer that reports it.
     */
    @Override
    public PayAnswer pay(Pay p, Service service) throws Exception {
        Optional<Lease> lease = payment.locks().tryAcquire("order:" + p.orderId());
        if (lease.isEmpty()) {
            throw new Refused("order " + p.orderId() + " is already processing");
        }
        try {
            RunResult r;
            pause.set(service);
            try {
                r = retries.run(TYPE, encode(p).getBytes(StandardCharsets.UTF_8), p.orderId());
            } finally {
                pause.remove();
            }
            if (r.failure() != null
                    && !(r.failure() instanceof PlatformException)
                    && !(r.failure() instanceof NonRetryableException)) {
                throw (Exception) r.failure(); // not the platform's answer; the log finishes the order
            }
            return switch (r.outcome()) {
                case SUCCEEDED -> PayAnswer.paid(orders.find(p.orderId()).chargeId());
                case RETRY_SCHEDULED -> PayAnswer.pending();
                case BLOCKED -> PayAnswer.declined();
            };
        } finally {
            lease.get().close();
        }
    }

    /** The workers work off the log: wait until no task of the run is pending or running, then stop. */
    @Override
    public void settle() {
        LabRetries.drainThenClose(store, TYPE, retries);
    }

    @Override
    public void close() {
        retries.close();
    }

    @Override
    public boolean settlesItself() {
        return true;
    }

    /** The log's own invariants: nothing left unfinished, and one alert per blocked task. */
    @Override
    public List<String> violations() {
        RetryStats s = store.stats();
        List<String> out = new ArrayList<>();
        long open = LabRetries.open(store, TYPE);
        if (open > 0) {
            out.add(open + " retry tasks still PENDING or RUNNING after the retry job");
        }
        if (s.count(TYPE, TaskState.BLOCKED) != blockedAlerts.get()) {
            out.add(s.count(TYPE, TaskState.BLOCKED) + " blocked retry tasks but " + blockedAlerts.get()
                    + " blocking alerts");
        }
        return out;
    }

    @Override
    public Map<String, Long> metrics() {
        RetryStats s = store.stats();
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("retryTasksSucceeded", s.count(TYPE, TaskState.SUCCEEDED));
        m.put("retryTasksBlocked", s.count(TYPE, TaskState.BLOCKED));
        m.put("blockedAlerts", blockedAlerts.get());
        m.put("moneyFirstFailureAlerts", moneyAlerts.get());
        return m;
    }

    static String encode(Pay p) {
        return p.orderId() + "|" + p.amountCents() + "|" + p.script().name();
    }

    static Pay decode(String payload) {
        String[] f = payload.split("\\|");
        return new Pay(f[0], Long.parseLong(f[1]), PlatformScript.valueOf(f[2]));
    }
}
