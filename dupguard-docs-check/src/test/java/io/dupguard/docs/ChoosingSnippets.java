package io.dupguard.docs;

import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import io.dupguard.jdbc.CreateOnce;
import io.dupguard.jdbc.Fence;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcRetryStore;
import io.dupguard.jdbc.JdbcSubmissionTokens;
import io.dupguard.jdbc.JdbcTransactionalIdempotency;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.lock.LockProvider;
import io.dupguard.retry.RetryLog;
import io.dupguard.retry.RunResult;
import io.dupguard.retry.TaskOptions;
import io.dupguard.spring.annotation.Idempotent;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.TokenRefusedException;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** The snippets of docs/choosing.md. */
class ChoosingSnippets {

    record PaymentRequest(String account, long amountCents) {}

    record Receipt(long chargeId) {}

    record Credit(String messageId, String account, long amountCents) {}

    static Outcome<Long> paymentApi(DataSource dataSource, String idempotencyKey, String account, long amountCents)
            throws SQLException {
        // tag::payment-api[]
        JdbcTransactionalIdempotency payments = JdbcTransactionalIdempotency.of(
                JdbcIdempotencyStore.builder(dataSource).createSchemaIfMissing(true).build());

        Outcome<Long> charge = payments.executeInTransaction(
                IdempotencyKey.of("payments", idempotencyKey), // the client's Idempotency-Key
                Fingerprint.ofFields(Map.of("account", account, "amountCents", amountCents)),
                Long.class,
                conn -> insertCharge(conn, account, amountCents)); // commits with the key's record
        // end::payment-api[]
        return charge;
    }

    static class Payments {
        // tag::idempotent-method[]
        @Idempotent(scope = "payments", key = "#key", fingerprint = {"#request.account", "#request.amountCents"})
        public Receipt charge(String key, PaymentRequest request) {
            return new Receipt(ledgerInsert(request)); // in the caller's transaction with the key's record
        }
        // end::idempotent-method[]

        long ledgerInsert(PaymentRequest request) {
            return 1L;
        }
    }

    static String formToken(DataSource dataSource, String userId, String token) {
        // tag::form-token[]
        SubmissionTokens tokens = JdbcSubmissionTokens.create(dataSource);
        String issued = tokens.issue("checkout", userId, Duration.ofMinutes(30)); // rendered into the form

        try { // the token is spent only if the work returns; a failed attempt may be retried
            return tokens.execute("checkout", userId, token, () -> placeOrder(userId));
        } catch (TokenRefusedException e) {
            return "This form was already submitted";
        }
        // end::form-token[]
    }

    static String placeOrder(String userId) {
        return "order-1";
    }

    static void messageBatch(DataSource dataSource, JdbcTransactionalIdempotency processed, List<Credit> batch)
            throws SQLException {
        // tag::message-batch[]
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            List<BatchEntry> entries = batch.stream()
                    .map(m -> BatchEntry.of(IdempotencyKey.of("credits", m.messageId())))
                    .toList();
            Map<String, Credit> byId = new java.util.HashMap<>();
            batch.forEach(m -> byId.put(m.messageId(), m));
            processed.executeBatch(c, entries, Void.class, (claimed, progress) -> {
                for (BatchEntry e : claimed) { // only the messages not processed before
                    applyCredit(c, byId.get(e.key().key()));
                    progress.done(e.key(), null);
                }
            });
            c.commit(); // the processed-message rows commit with the credits: one claim statement per batch
        }
        // end::message-batch[]
    }

    static CreateOnce.Result createOnce(DataSource dataSource, long userId) {
        // tag::create-once[]
        CreateOnce balances = CreateOnce.builder(dataSource, "account_balance")
                .keyColumns("user_id") // a unique key on it
                .verifiedColumns("currency") // an existing row with another currency is an error
                .build();
        CreateOnce.Result r =
                balances.create(Map.of("user_id", userId, "currency", "CNY", "amount", BigDecimal.ZERO));
        // end::create-once[]
        return r;
    }

    static RetryLog stuckOrder(DataSource dataSource, String orderId) {
        // tag::stuck-order[]
        RetryLog retries = RetryLog.builder(JdbcRetryStore.builder(dataSource)
                        .createSchemaIfMissing(true)
                        .build())
                .handler("order.pay", task -> payOrder(task.payloadText()), TaskOptions.custom()
                        .moneyRelated(true) // the first failure alerts too
                        .build())
                .build()
                .start();

        RunResult r = retries.run("order.pay", orderId); // runs now; a timeout is retried by the workers,
        // a decline is BLOCKED with an alert for a person
        // end::stuck-order[]
        return retries;
    }

    static void fencedLock(LockProvider locks, DataSource dataSource, String day) throws SQLException {
        // tag::fenced-lock[]
        try (Lease lease = locks.acquire("settlement:" + day, LockOptions.custom()
                        .waitTime(Duration.ofSeconds(2))
                        .build());
                Connection c = dataSource.getConnection()) {
            boolean written = Fence.on("settlement", "day", "fence")
                    .update(c, day, lease.fencingToken(), "status = ?", "DONE"); // false: a newer holder wrote
        }
        // end::fenced-lock[]
    }

    static long insertCharge(Connection conn, String account, long amountCents) throws SQLException {
        return 1L;
    }

    static void applyCredit(Connection c, Credit credit) throws SQLException {}

    static void payOrder(String orderId) {}
}
