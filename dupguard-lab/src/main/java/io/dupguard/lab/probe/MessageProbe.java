package io.dupguard.lab.probe;

import io.dupguard.lab.env.UnreachableException;
import java.io.IOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What the message probes ({@link RabbitProbe}, {@link KafkaProbe}) share: the body templates, the
 * effects queries, the copies and keys per scenario, the settling, and the checks of that input
 * before anything is published.
 *
 * @param <P> the probe itself, returned by every setter
 */
public abstract sealed class MessageProbe<P extends MessageProbe<P>> permits RabbitProbe, KafkaProbe {
    BodyTemplate body = new BodyTemplate("");
    private BodyTemplate changedBody;
    String contentType = "application/json";
    final List<String> effectsSql = new ArrayList<>();
    String jdbcUrl;
    int copies = 8;
    int keys = 2;
    Duration settle = Duration.ofSeconds(2);
    Duration lostAfter = Duration.ofSeconds(15);
    Consumer<String> progress = line -> {};
    String launch;
    String restart;
    String health;
    Duration startTimeout = Duration.ofSeconds(180);
    Duration killAfter = Duration.ofMillis(300);
    int burst = 20;
    private final AtomicLong sequence = new AtomicLong();
    final String runId = UUID.randomUUID().toString().substring(0, 8);

    MessageProbe() {}

    @SuppressWarnings("unchecked")
    private P self() {
        return (P) this;
    }

    /** The body template ({@code {{key}}}, {@code {{uuid}}}, {@code {{n}}}). */
    public P body(String template) {
        this.body = new BodyTemplate(template);
        return self();
    }

    /** The body the changed-body scenario sends with a used id (default: one more JSON member, or a line). */
    public P changedBody(String template) {
        this.changedBody = new BodyTemplate(template);
        return self();
    }

    /** The messages' content type (default {@code application/json}; a JSON body must be valid once filled). */
    public P contentType(String type) {
        this.contentType = type;
        return self();
    }

    /** Counts effects with {@code sql} (containing {@code :key}) over {@code jdbcUrl}; may be called again. */
    public P effects(String jdbcUrl, String sql) {
        this.jdbcUrl = jdbcUrl;
        this.effectsSql.add(sql);
        return self();
    }

    /** Copies of one message in the published-n-times scenario (default 8). */
    public P copies(int n) {
        this.copies = n;
        return self();
    }

    /** Keys per scenario (default 2). */
    public P keys(int n) {
        this.keys = n;
        return self();
    }

    /** Wait before counting (default 2 s), then recount keys without effects until {@code lostAfter} (default 15 s). */
    public P settle(Duration settle, Duration lostAfter) {
        this.settle = settle;
        this.lostAfter = lostAfter;
        return self();
    }

    /**
     * Launches the service with {@code command} (through {@code /bin/sh -c}) and enables the kill
     * scenario: a burst of messages, SIGKILL of the process tree mid-burst, a new launch. Ready when
     * {@code healthUrl} answers 2xx or, when null, when the broker sees the service consuming again.
     */
    public P launch(String command, String healthUrl) {
        this.launch = command;
        this.health = healthUrl;
        return self();
    }

    /** Enables the kill scenario with a command that kills the service hard and starts it again. */
    public P restart(String command, String healthUrl) {
        this.restart = command;
        this.health = healthUrl;
        return self();
    }

    /** How long a (re)started service has to become ready (default 180 s). */
    public P startTimeout(Duration timeout) {
        this.startTimeout = timeout;
        return self();
    }

    /** How long after the burst's first message the kill scenario kills the service (default 300 ms). */
    public P killAfter(Duration delay) {
        this.killAfter = delay;
        return self();
    }

    /** Messages, each with a fresh id, in the kill scenario's burst (default 20). */
    public P burst(int n) {
        this.burst = n;
        return self();
    }

    /** Receives one line per scenario as it finishes. */
    public P progress(Consumer<String> sink) {
        this.progress = sink;
        return self();
    }

    /** {@code publish …}: where the messages go (no credentials). */
    public abstract String target();

    /**
     * Checks the input, publishes every scenario's messages and counts the effects.
     *
     * @throws ProbeInputException for input the probe cannot use
     * @throws UnreachableException when the broker, the destination or the database cannot be used
     */
    public abstract ProbeReport run();

    /**
     * Checks the shared input (copies, keys, the queries, the bodies) and counts one unused key with
     * every query; the parsed queries.
     *
     * @throws ProbeInputException for input the probe cannot use
     * @throws UnreachableException when the queries cannot count
     */
    final List<EffectsQuery> checkInput() {
        if (launch != null && restart != null) {
            throw new ProbeInputException("--launch and --restart: give one (--launch starts and kills the service"
                    + " itself; --restart names a command that kills and restarts it)");
        }
        if (health != null && !health.isBlank() && !health.matches("(?i)https?://.+")) {
            throw new ProbeInputException(
                    "--health: an http:// URL the service answers 2xx on when ready, got: " + health);
        }
        if (burst < 1 || burst > 1000) {
            throw new ProbeInputException("--burst: between 1 and 1000 messages, got " + burst);
        }
        if (killAfter.isNegative() || killAfter.compareTo(Duration.ofSeconds(60)) > 0) {
            throw new ProbeInputException("--kill-after: between 0 and 60s, got " + killAfter.toMillis() + "ms");
        }
        if (body.text().isEmpty()) {
            throw new ProbeInputException("--body: a body template is required, e.g. '{\"ref\":\"{{key}}\"}'"
                    + " ({{key}} where the effect records it, so that --effects-sql can count one key's effects)");
        }
        if (copies < 2 || copies > 1000) {
            throw new ProbeInputException("--copies: between 2 and 1000 copies of a message, got " + copies);
        }
        if (keys < 1 || keys > 100) {
            throw new ProbeInputException("--keys: between 1 and 100 keys per scenario, got " + keys);
        }
        if (effectsSql.isEmpty() || jdbcUrl == null || jdbcUrl.isBlank()) {
            throw new ProbeInputException("--effects-jdbc-url and --effects-sql: the database the effects land in and"
                    + " a query counting one key's effects are required");
        }
        List<EffectsQuery> queries = effectsSql.stream().map(EffectsQuery::of).toList();
        body.check(contentType, "--body");
        changed().check(contentType, "--changed-body");
        return queries;
    }

    /**
     * Counts one unused key with every query.
     *
     * @throws UnreachableException when the queries cannot count
     */
    final void checkEffects(List<EffectsQuery> queries) {
        try (Connection c = DriverManager.getConnection(jdbcUrl)) {
            for (EffectsQuery q : queries) {
                q.count(c, "dupguard-probe-check-" + runId);
            }
        } catch (SQLException e) {
            throw new UnreachableException(
                    "--effects-sql / --effects-jdbc-url " + jdbcUrl + ": cannot count effects: " + e.getMessage(), e);
        }
    }

    /**
     * The service under probe with {@code --launch} or {@code --restart}, else null; ready through
     * {@code --health}, or when {@code ready} answers null.
     */
    final ServiceProcess service(Supplier<String> ready) {
        if (launch == null && restart == null) {
            return null;
        }
        try {
            return new ServiceProcess(
                    launch,
                    restart,
                    health == null || health.isBlank() ? null : URI.create(health),
                    null,
                    startTimeout,
                    ready);
        } catch (IOException e) {
            throw new UnreachableException("cannot prepare the service's log file: " + e.getMessage(), e);
        }
    }

    /** Publishes one message of a scenario, with its id, as the {@code i}-th of the scenario. */
    @FunctionalInterface
    interface BurstPublisher {
        void publish(MessageScenario s, String key, String body, int i)
                throws IOException, InterruptedException, java.util.concurrent.TimeoutException;
    }

    /**
     * The changed-body scenario: per key, a message, then another body under the same id (the
     * {@code 2k}-th and {@code 2k+1}-th: on Kafka, two partitions); the second must not take effect
     * again.
     */
    final MessageScenario changedBodyScenario(String message, BurstPublisher publisher)
            throws IOException, InterruptedException, java.util.concurrent.TimeoutException {
        MessageScenario s = new MessageScenario(
                "changed-body",
                "per key, a " + message + ", then another body with the same id: the second must not take effect"
                        + " again");
        BodyTemplate other = changed();
        for (int i = 0; i < keys; i++) {
            String key = freshKey();
            long n = n();
            publisher.publish(s, key, body.fill(key, n), 2 * i);
            publisher.publish(s, key, other.fill(key, n), 2 * i + 1);
        }
        return s;
    }

    /**
     * The kill scenario: once {@code drained} (the broker's view that the service caught up with
     * the other scenarios), {@link #burst} messages with fresh ids published from a thread of their
     * own; {@link #killAfter} after the first, {@code beforeKill} (the readiness's reset), the
     * service killed and started again; then {@code drained} (the broker's view that the service
     * caught up) waited for, up to {@link #lostAfter}.
     */
    final MessageScenario kill(
            ServiceProcess service, Runnable beforeKill, BurstPublisher publisher, BooleanSupplier drained)
            throws InterruptedException {
        MessageScenario s = new MessageScenario(
                "kill",
                burst + " messages with fresh ids in a burst; " + killAfter.toMillis()
                        + " ms after the first, the service is killed (SIGKILL"
                        + (launch != null ? " of the launched process tree" : ", by the --restart command")
                        + ") and started again: each id must take effect once");
        // The kill is to land in the burst, not in what the other scenarios left.
        awaitDrained(drained);
        List<String[]> messages = new ArrayList<>();
        for (int i = 0; i < burst; i++) {
            String key = freshKey();
            messages.add(new String[] {key, body.fill(key, n())});
        }
        AtomicInteger published = new AtomicInteger();
        CountDownLatch first = new CountDownLatch(1);
        CompletableFuture<Void> publishing = CompletableFuture.runAsync(
                () -> {
                    try {
                        for (int i = 0; i < messages.size(); i++) {
                            publisher.publish(s, messages.get(i)[0], messages.get(i)[1], i);
                            published.incrementAndGet();
                            first.countDown();
                        }
                    } catch (RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new CompletionException(e);
                    } finally {
                        first.countDown();
                    }
                },
                r -> {
                    Thread t = new Thread(r, "dupguard-probe-burst");
                    t.setDaemon(true);
                    t.start();
                });
        first.await();
        Thread.sleep(killAfter.toMillis()); // the moment of the kill is the scenario's input
        int before = published.get();
        long t0 = System.nanoTime();
        beforeKill.run();
        try {
            service.killAndRestart();
        } catch (UnreachableException e) {
            s.notes.add("not ready again: " + e.getMessage());
        }
        double ready = (System.nanoTime() - t0) / 1e9;
        try {
            publishing.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
        boolean caughtUp = awaitDrained(drained);
        s.notes.add(String.format(
                Locale.ROOT,
                "killed %d ms after the first message, %d of %d published by then; ready again after %.1f s; %s",
                killAfter.toMillis(),
                before,
                burst,
                ready,
                caughtUp
                        ? "caught up " + String.format(Locale.ROOT, "%.1f s", (System.nanoTime() - t0) / 1e9)
                                + " after the kill"
                        : "not caught up within " + lostAfter.toSeconds() + " s"));
        return s;
    }

    /** Waits up to {@link #lostAfter} for {@code drained}; whether it came. */
    private boolean awaitDrained(BooleanSupplier drained) throws InterruptedException {
        long deadline = System.nanoTime() + lostAfter.toNanos();
        boolean caughtUp = drained.getAsBoolean();
        while (!caughtUp && System.nanoTime() < deadline) {
            Thread.sleep(100); // polls the broker's view of the service's progress
            caughtUp = drained.getAsBoolean();
        }
        return caughtUp;
    }

    /** Counts the effects of every scenario's keys; the verdicts of a run that began at {@code start}. */
    final ProbeReport report(long start, List<EffectsQuery> queries, List<MessageScenario> done) {
        List<ScenarioVerdict> verdicts = MessageScenario.count(jdbcUrl, queries, done, settle, lostAfter);
        return new ProbeReport(
                target(),
                effectsSql,
                verdicts,
                (System.nanoTime() - start) / 1e9,
                verdicts.stream().allMatch(ScenarioVerdict::ok));
    }

    final BodyTemplate changed() {
        return changedBody != null ? changedBody : body.changed();
    }

    final String freshKey() {
        return "probe-" + runId + "-" + sequence.incrementAndGet();
    }

    /** The number of the latest key, filled into {@code {{n}}}. */
    final long n() {
        return sequence.get();
    }

    /** The innermost message of a client failure, on one line. */
    static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return m.replaceAll("\\s+", " ");
    }
}
