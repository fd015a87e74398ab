package io.dupguard.docs;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import io.dupguard.jdbc.JdbcRetryStore;
import io.dupguard.retry.Alert;
import io.dupguard.retry.RetryConfig;
import io.dupguard.retry.RetryLog;
import io.dupguard.retry.RetrySchedule;
import io.dupguard.retry.RetryStore;
import io.dupguard.retry.RunResult;
import io.dupguard.retry.TaskHandler;
import io.dupguard.retry.TaskOptions;
import io.dupguard.retry.TaskPage;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/** The snippets of docs/retries.md. */
class RetriesSnippets {

    static class PlatformException extends RuntimeException {
        private final boolean retryable;

        PlatformException(boolean retryable) {
            super(retryable ? "platform busy" : "card declined");
            this.retryable = retryable;
        }

        boolean retryable() {
            return retryable;
        }
    }

    interface Pager {
        void send(Alert alert);
    }

    record Order(String id) {}

    interface Ledger {
        String charge(String order);
    }

    interface Platform {
        Outcome<String> charge(String idempotencyKey, String order);
    }

    static RetryLog overview(DataSource dataSource, TaskHandler chargeHandler, Pager pager, String orderId) {
        // tag::overview[]
        RetryStore store = JdbcRetryStore.builder(dataSource)
                .createSchemaIfMissing(true)                     // or apply io/dupguard/jdbc/schema/<dialect>.sql
                .build();
        RetryLog retries = RetryLog.builder(store)
                .handler("payment.charge", chargeHandler,        // one handler per type: run and every retry call it
                        TaskOptions.custom()
                                .schedule(RetrySchedule.stepped(Duration.ofSeconds(10), Duration.ofSeconds(30),
                                        Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(30), Duration.ofHours(2)))
                                .classifier(e -> !(e instanceof PlatformException p) || p.retryable())   // retryable or not
                                .moneyRelated(true)              // alert on the first failure too
                                .build())
                .config(RetryConfig.custom().workers(4).alertSink(pager::send).build())
                .build()
                .start();

        // The normal path runs the step through the log: the handler runs now, inline.
        RunResult r = retries.run("payment.charge", orderId);
        switch (r.outcome()) {
            case SUCCEEDED -> { /* ... */ }         // nothing was recorded
            case RETRY_SCHEDULED -> { /* ... */ }   // recorded PENDING, a worker retries it
            case BLOCKED -> { /* ... */ }           // not retryable: recorded BLOCKED, an alert fired
        }
        // end::overview[]
        return retries;
    }

    static void outbox(DataSource dataSource, JdbcRetryStore store, Order order) throws SQLException {
        // tag::outbox[]
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, order);
            store.enqueue(c, "order.notify", order.id().getBytes(UTF_8), "order-" + order.id());   // dedup key
            c.commit();                                   // the task exists iff the order does
        }
        // end::outbox[]
    }

    static TaskHandler sameTransaction(DataSource dataSource) {
        // tag::sameTransaction[]
        TaskHandler credit = task -> {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                applyCredit(c, task.payloadText());
                task.completeInTransaction(c);            // guarded UPDATE; LeaseLostException → roll back
                c.commit();
            }
        };
        // end::sameTransaction[]
        return credit;
    }

    static class ExternalCalls {
        Idempotency idempotency;
        Ledger ledger;
        Platform platform;

        // tag::externalCalls[]
        // the payment platform (another service)
        Outcome<String> charge(String idempotencyKey, String order) {
            return idempotency.execute(IdempotencyKey.of("platform.charge", idempotencyKey),
                    Fingerprint.ofString(order), String.class,
                    () -> ledger.charge(order));            // runs once per key; a repeat replays its charge id
        }

        // the retry log's handler, in the shop
        TaskHandler pay = task -> platform.charge(task.taskKey(), task.payloadText());
        // end::externalCalls[]
    }

    static void blocked(RetryLog retries, long id) {
        // tag::blocked[]
        retries.blocked("payment.charge", TaskPage.first(50));   // BLOCKED tasks, by id; next page: new TaskPage(lastId, 50)
        retries.unblock(id);          // BLOCKED → PENDING, due now, a fresh attempt budget; false if not BLOCKED
        retries.unblockAll("payment.charge");
        retries.cancel(id);           // PENDING or BLOCKED → CANCELLED; false for RUNNING or finished tasks
        retries.stats();              // counts by type and state, earliest due time of PENDING/RUNNING work
        retries.status(id);           // the task: state, attempts, due time, last error
        // end::blocked[]
    }

    static void insertOrder(Connection c, Order order) {}

    static void applyCredit(Connection c, String payload) {}
}
