package io.dupguard.examples.payments;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.SoftAssertions;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Kills the service (a real child JVM, {@link PaymentsProcess}) at every {@link CrashPoints} point
 * of a payment's path — in the request, around its commit, in the outbox's publish and in the
 * listener — restarts it, lets the client retry with the same key until it gets its 201, and checks
 * that every payment took effect once: one payment row, one authorisation at the card network
 * (called once per attempt that reached it), one credit, and the balance of the amount.
 *
 * <p>To save JVM starts the crashes are chained: the JVM started after crash {@code i} is armed for
 * payment {@code i + 1}; it first serves the retries of payment {@code i} (and runs what its
 * predecessor left: outbox tasks, redelivered credits), then receives payment {@code i + 1} and halts
 * at its point. The chain runs in the transactional mode ({@code dupguard.store=jdbc}) and in the
 * backstop mode (Redis in front of the JDBC table). Each chain has its own queue and
 * outbox table, and the two chains run at the same time. A third chain, {@link LedgerCrashChain},
 * halts the ledger topic's Kafka batch listener before its commit, in the middle of a poll and after
 * the commit (before the offsets commit). Logs: {@code target/crash-logs/<chain>/}.
 */
@Execution(ExecutionMode.CONCURRENT)
class PaymentsCrashIT {
    static final List<String> POINTS = List.of(
            "after-gateway",
            "after-insert",
            "before-commit",
            "after-commit",
            "before-publish",
            "after-publish",
            "listener-before-commit",
            "listener-after-commit");

    private static final Duration RETRY_DEADLINE = Duration.ofSeconds(30);

    private final JdbcTemplate db = new JdbcTemplate(new DriverManagerDataSource(
            System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres")));

    record Attempt(String point, String key, String ref, String account, String amount) {}

    @Test
    void transactionalModeTakesEveryPaymentOnceWhereverTheServiceCrashes() throws Exception {
        crashAtEveryPoint("jdbc", List.of("--dupguard.store=jdbc"));
    }

    @Test
    void backstopModeTakesEveryPaymentOnceWhereverTheServiceCrashes() throws Exception {
        crashAtEveryPoint("redis", List.of("--dupguard.store=redis"));
    }

    @Test
    void theLedgerBatchListenerTakesEveryEntryOnceWhereverTheConsumerCrashes() throws Exception {
        ledgerChain("jdbc");
    }

    @Test
    void inBackstopModeTheLedgerBatchListenerTakesEveryEntryOnceWhereverTheConsumerCrashes() throws Exception {
        ledgerChain("redis");
    }

    private void ledgerChain(String store) throws Exception {
        SoftAssertions softly = new SoftAssertions();
        LedgerCrashChain.run(
                db,
                List.of(
                        "--dupguard.store=" + store,
                        "--spring.datasource.url="
                                + System.getProperty(
                                        "dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"),
                        "--payments.credits.queue=payments.credits.crash-ledger-" + store,
                        "--dupguard.retry.table=example_crash_ledger_" + store + "_retry_tasks",
                        "--spring.datasource.hikari.maximum-pool-size=6",
                        "--spring.datasource.hikari.minimum-idle=1",
                        "--dupguard.idempotency.in-flight-lease=3s"),
                softly);
        softly.assertAll();
    }

    private void crashAtEveryPoint(String mode, List<String> modeArgs) throws Exception {
        String run = Long.toString(System.currentTimeMillis(), 36);
        List<Attempt> attempts = new ArrayList<>();
        for (int i = 0; i < POINTS.size(); i++) {
            String key = UUID.randomUUID().toString();
            attempts.add(new Attempt(
                    POINTS.get(i),
                    key,
                    PaymentController.reference("shop-a", key).toString(),
                    "crash-" + mode + "-" + run + "-" + i,
                    (i + 1) + ".25"));
        }
        List<String> args = new ArrayList<>(modeArgs);
        args.addAll(List.of(
                "--spring.datasource.url="
                        + System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"),
                // each chain's own queue and outbox table: no other instance takes its work
                "--payments.credits.queue=payments.credits.crash-" + mode,
                "--dupguard.retry.table=example_crash_" + mode + "_retry_tasks",
                "--spring.datasource.hikari.maximum-pool-size=6",
                "--spring.datasource.hikari.minimum-idle=1",
                // what a dead JVM held frees itself within seconds
                "--dupguard.idempotency.in-flight-lease=3s",
                "--dupguard.retry.lease=2s"));
        List<Path> logs = new ArrayList<>();
        // Every point is checked even after one fails, so a run tells which points hold.
        SoftAssertions softly = new SoftAssertions();
        PaymentsProcess app = null;
        try {
            app = start(mode + "-" + run, logs, attempts.get(0), args);
            for (int i = 0; i < attempts.size(); i++) {
                Attempt a = attempts.get(i);
                if (i > 0) {
                    payUntilCreated(app, attempts.get(i - 1), softly);
                }
                payOnce(app, a);
                awaitHalt(app, a, softly);
                app = start(mode + "-" + run, logs, i + 1 < attempts.size() ? attempts.get(i + 1) : null, args);
            }
            payUntilCreated(app, attempts.get(attempts.size() - 1), softly);
            awaitCredits(attempts, softly);
            for (Attempt a : attempts) {
                softly.assertThat(count("example_payments_v2", a.ref()))
                        .as("payment rows of the payment crashed at %s", a.point())
                        .isEqualTo(1);
                softly.assertThat(db.queryForObject(
                                "select count(*) from example_gateway_authorisations where auth_key = ?",
                                Integer.class,
                                a.ref()))
                        .as("authorisations of the payment crashed at %s", a.point())
                        .isEqualTo(1);
                softly.assertThat(count("example_credits_v2", a.ref()))
                        .as("credits of the payment crashed at %s", a.point())
                        .isEqualTo(1);
                softly.assertThat(balance(a.account()))
                        .as("balance of the account of the payment crashed at %s", a.point())
                        .isEqualByComparingTo(a.amount());
            }
            softly.assertAll();
        } catch (Exception | AssertionError e) {
            PaymentsProcess.printTails(logs);
            throw e;
        } finally {
            if (app != null) {
                app.kill();
            }
        }
    }

    /** The JVM armed for {@code a} must halt there; if it does not, it is killed and the chain goes on. */
    private static void awaitHalt(PaymentsProcess app, Attempt a, SoftAssertions softly) throws InterruptedException {
        try {
            softly.assertThat(app.awaitExit(Duration.ofSeconds(60)))
                    .as("exit code of the JVM that should halt at %s", a.point())
                    .isEqualTo(137);
        } catch (AssertionError e) {
            softly.fail(e.getMessage());
            app.kill();
        }
    }

    /** Credits are asynchronous: waits until every payment has one (or the deadline passes). */
    private void awaitCredits(List<Attempt> attempts, SoftAssertions softly) {
        try {
            Awaitility.await("a credit for every payment")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> attempts.stream().allMatch(a -> count("example_credits_v2", a.ref()) > 0));
        } catch (ConditionTimeoutException e) {
            for (Attempt a : attempts) {
                if (count("example_credits_v2", a.ref()) == 0) {
                    softly.fail("no credit within 60 s for the payment crashed at " + a.point());
                }
            }
        }
    }

    private static PaymentsProcess start(String chain, List<Path> logs, Attempt armedFor, List<String> args)
            throws IOException {
        String crashAt = armedFor == null ? null : armedFor.point() + ":" + armedFor.ref();
        String name = logs.size() + "-" + (armedFor == null ? "last" : armedFor.point());
        Path log = Path.of("target", "crash-logs", chain, name + ".log");
        logs.add(log);
        // The shared servers may refuse a start now and then (PostgreSQL: too many clients): up to 3 tries.
        for (int attempt = 1; ; attempt++) {
            try {
                return PaymentsProcess.start(log, crashAt, args);
            } catch (RuntimeException | AssertionError e) {
                if (attempt == 3) {
                    throw e;
                }
                System.out.println("the service did not start (" + e.getMessage() + "); starting it again");
                log = log.resolveSibling(name + "-again-" + attempt + ".log");
                logs.add(log);
            }
        }
    }

    /** One request; the service may halt before it answers. */
    private static void payOnce(PaymentsProcess app, Attempt a) throws InterruptedException {
        PaymentsClient client = app.client();
        try {
            client.send(client.pay("shop-a", a.key(), a.account(), a.amount()));
        } catch (IOException expected) {
            // the connection died with the JVM
        }
    }

    /** The client's retries with the same key and body: 409 (in flight) and failures retry, until 201. */
    private static void payUntilCreated(PaymentsProcess app, Attempt a, SoftAssertions softly) {
        PaymentsClient client = app.client();
        AtomicReference<String> last = new AtomicReference<>("no answer");
        try {
            Awaitility.await()
                    .atMost(RETRY_DEADLINE)
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> {
                        try {
                            HttpResponse<String> r =
                                    client.send(client.pay("shop-a", a.key(), a.account(), a.amount()));
                            last.set(r.statusCode() + " " + r.body());
                            return r.statusCode() == 201;
                        } catch (IOException e) {
                            last.set(e.toString());
                            return false;
                        }
                    });
        } catch (ConditionTimeoutException e) {
            softly.fail("the retries of the payment crashed at " + a.point() + " got no 201 within " + RETRY_DEADLINE
                    + "; last answer: " + last.get());
        }
    }

    private BigDecimal balance(String account) {
        return db.query(
                "select balance from example_accounts where id = ?",
                rs -> rs.next() ? rs.getBigDecimal(1) : BigDecimal.ZERO,
                account);
    }

    private int count(String table, String ref) {
        return db.queryForObject("select count(*) from " + table + " where payment_ref = ?", Integer.class, ref);
    }
}
