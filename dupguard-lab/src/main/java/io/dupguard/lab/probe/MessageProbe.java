package io.dupguard.lab.probe;

import io.dupguard.lab.env.UnreachableException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

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
        try (Connection c = DriverManager.getConnection(jdbcUrl)) {
            for (EffectsQuery q : queries) {
                q.count(c, "dupguard-probe-check-" + runId);
            }
        } catch (SQLException e) {
            throw new UnreachableException(
                    "--effects-sql / --effects-jdbc-url " + jdbcUrl + ": cannot count effects: " + e.getMessage(), e);
        }
        return queries;
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
