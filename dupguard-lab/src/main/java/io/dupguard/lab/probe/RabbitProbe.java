package io.dupguard.lab.probe;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import io.dupguard.lab.env.UnreachableException;
import io.dupguard.lab.storm.LatencyBucket;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * The message scenarios against a RabbitMQ queue a running service consumes, each on fresh keys
 * (the message-id, or a header of the user's), with the effects counted per key by the user's
 * queries. Built by {@link Probe#rabbitmq(String)}; {@link #run()} checks the input, then
 * publishes and returns the verdicts.
 */
public final class RabbitProbe {
    /** The scenarios, in the order they run. */
    public static final List<String> SCENARIOS = List.of("published-n-times", "redelivery", "changed-body", "no-id");

    private final String uri;
    private String queue;
    private String exchange = "";
    private String routingKey;
    private BodyTemplate body = new BodyTemplate("");
    private BodyTemplate changedBody;
    private String contentType = "application/json";
    private String keyHeader;
    private final List<String> effectsSql = new ArrayList<>();
    private String jdbcUrl;
    private int copies = 8;
    private int keys = 2;
    private Duration settle = Duration.ofSeconds(2);
    private Duration lostAfter = Duration.ofSeconds(15);
    private Consumer<String> progress = line -> {};
    private final AtomicLong sequence = new AtomicLong();
    private final String runId = UUID.randomUUID().toString().substring(0, 8);

    RabbitProbe(String uri) {
        this.uri = Objects.requireNonNull(uri, "uri");
    }

    /** The queue the service consumes; messages go through the default exchange unless {@link #exchange} is set. */
    public RabbitProbe queue(String queue) {
        this.queue = queue;
        return this;
    }

    /** Publishes to {@code exchange} with {@code routingKey} instead of the default exchange. */
    public RabbitProbe exchange(String exchange, String routingKey) {
        this.exchange = exchange;
        this.routingKey = routingKey;
        return this;
    }

    /** The body template ({@code {{key}}}, {@code {{uuid}}}, {@code {{n}}}). */
    public RabbitProbe body(String template) {
        this.body = new BodyTemplate(template);
        return this;
    }

    /** The body the changed-body scenario sends with a used id (default: one more JSON member, or a line). */
    public RabbitProbe changedBody(String template) {
        this.changedBody = new BodyTemplate(template);
        return this;
    }

    /** The messages' content type (default {@code application/json}; a JSON body must be valid once filled). */
    public RabbitProbe contentType(String type) {
        this.contentType = type;
        return this;
    }

    /** Carries the key in this header instead of the {@code message-id} property. */
    public RabbitProbe keyHeader(String name) {
        this.keyHeader = name == null || name.isBlank() ? null : name.strip();
        return this;
    }

    /** Counts effects with {@code sql} (containing {@code :key}) over {@code jdbcUrl}; may be called again. */
    public RabbitProbe effects(String jdbcUrl, String sql) {
        this.jdbcUrl = jdbcUrl;
        this.effectsSql.add(sql);
        return this;
    }

    /** Copies of one message in the published-n-times scenario (default 8). */
    public RabbitProbe copies(int n) {
        this.copies = n;
        return this;
    }

    /** Keys per scenario (default 2). */
    public RabbitProbe keys(int n) {
        this.keys = n;
        return this;
    }

    /** Wait before counting (default 2 s), then recount keys without effects until {@code lostAfter} (default 15 s). */
    public RabbitProbe settle(Duration settle, Duration lostAfter) {
        this.settle = settle;
        this.lostAfter = lostAfter;
        return this;
    }

    /** Receives one line per scenario as it finishes. */
    public RabbitProbe progress(Consumer<String> sink) {
        this.progress = sink;
        return this;
    }

    /** {@code publish amqp://127.0.0.1:5672 → credits} (no credentials) */
    public String target() {
        URI u = URI.create(uri);
        return "publish " + u.getScheme() + "://" + u.getHost() + (u.getPort() == -1 ? "" : ":" + u.getPort())
                + (exchange.isEmpty() ? " queue " + queue : " exchange " + exchange + " routing key " + routingKey);
    }

    /**
     * Checks the input (the queue exists and has a consumer, the queries count), publishes every
     * scenario's messages and counts the effects.
     *
     * @throws ProbeInputException for input the probe cannot use
     * @throws UnreachableException when the broker, the queue or the database cannot be used
     */
    public ProbeReport run() {
        long start = System.nanoTime();
        if (queue == null || queue.isBlank()) {
            throw new ProbeInputException("--queue: the queue the service consumes is required");
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
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(uri);
        } catch (Exception e) {
            throw new ProbeInputException("--uri: not an AMQP URI (amqp://user:password@host:port/vhost): " + uri);
        }
        factory.setConnectionTimeout(5000);
        List<Scenario> done = new ArrayList<>();
        try (com.rabbitmq.client.Connection conn = factory.newConnection("dupguard-probe")) {
            try (Channel check = conn.createChannel()) {
                AMQP.Queue.DeclareOk q = check.queueDeclarePassive(queue);
                if (q.getConsumerCount() == 0) {
                    throw new UnreachableException("--queue " + queue + ": no consumer; start the service first", null);
                }
            } catch (IOException e) {
                throw new UnreachableException("--queue " + queue + ": " + UnreachableMessage.of(e), e);
            }
            Channel ch = conn.createChannel();
            ch.confirmSelect();
            done.add(timed(publishedNTimes(ch)));
            done.add(timed(redelivery(conn, ch)));
            done.add(timed(changedBodyScenario(ch)));
            done.add(timed(noId(ch)));
        } catch (IOException | TimeoutException e) {
            throw new UnreachableException("--uri " + target() + ": " + UnreachableMessage.of(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        List<ScenarioVerdict> verdicts = count(queries, done);
        return new ProbeReport(
                target(),
                effectsSql,
                verdicts,
                (System.nanoTime() - start) / 1e9,
                verdicts.stream().allMatch(ScenarioVerdict::ok));
    }

    private BodyTemplate changed() {
        return changedBody != null ? changedBody : body.changed();
    }

    private String freshKey() {
        return "probe-" + runId + "-" + sequence.incrementAndGet();
    }

    private void publish(Scenario s, Channel ch, String key, boolean withKey, String text)
            throws IOException, InterruptedException, TimeoutException {
        AMQP.BasicProperties.Builder p =
                new AMQP.BasicProperties.Builder().contentType(contentType).deliveryMode(2);
        if (withKey) {
            if (keyHeader == null) {
                p.messageId(key);
            } else {
                p.headers(Map.of(keyHeader, key));
            }
        }
        long t0 = System.nanoTime();
        ch.basicPublish(
                exchange, exchange.isEmpty() ? queue : routingKey, p.build(), text.getBytes(StandardCharsets.UTF_8));
        ch.waitForConfirmsOrDie(10_000);
        s.record(key, "confirmed", (System.nanoTime() - t0) / 1000);
    }

    private Scenario publishedNTimes(Channel ch) throws IOException, InterruptedException, TimeoutException {
        Scenario s = new Scenario(
                "published-n-times",
                "per key, the same message (same id, same body) published " + copies + " times in a burst: a publisher"
                        + " retrying, an outbox sending again");
        for (int i = 0; i < keys; i++) {
            String key = freshKey();
            String b = body.fill(key, sequence.get());
            for (int c = 0; c < copies; c++) {
                publish(s, ch, key, true, b);
            }
        }
        return s;
    }

    private Scenario redelivery(com.rabbitmq.client.Connection conn, Channel ch)
            throws IOException, InterruptedException, TimeoutException {
        Scenario s = new Scenario(
                "redelivery",
                "per key, one message taken by a consumer of the probe's own (consumer priority 100, ahead of the"
                        + " service's), which nacks it with requeue: the broker redelivers it to the service");
        for (int i = 0; i < keys; i++) {
            String key = freshKey();
            String b = body.fill(key, sequence.get());
            BlockingQueue<Long> taken = new ArrayBlockingQueue<>(1);
            try (Channel mine = conn.createChannel()) {
                mine.basicQos(1);
                String tag = mine.basicConsume(
                        queue,
                        false,
                        Map.of("x-priority", 100),
                        (consumerTag, d) -> {
                            String id = keyHeader == null
                                    ? d.getProperties().getMessageId()
                                    : String.valueOf(
                                            d.getProperties().getHeaders() == null
                                                    ? null
                                                    : d.getProperties()
                                                            .getHeaders()
                                                            .get(keyHeader));
                            if (key.equals(id) && taken.offer(d.getEnvelope().getDeliveryTag())) {
                                return;
                            }
                            mine.basicNack(d.getEnvelope().getDeliveryTag(), false, true);
                        },
                        consumerTag -> {});
                publish(s, ch, key, true, b);
                Long delivery = taken.poll(10, TimeUnit.SECONDS);
                mine.basicCancel(tag);
                if (delivery == null) {
                    s.notes.add(key + ": the service took the message before the probe's consumer; not redelivered");
                } else {
                    mine.basicNack(delivery, false, true);
                    s.record(key, "taken and requeued", 0);
                }
            }
        }
        return s;
    }

    private Scenario changedBodyScenario(Channel ch) throws IOException, InterruptedException, TimeoutException {
        Scenario s = new Scenario(
                "changed-body",
                "per key, a message, then another body with the same id: the second must not take effect again");
        BodyTemplate other = changed();
        for (int i = 0; i < keys; i++) {
            String key = freshKey();
            long n = sequence.get();
            publish(s, ch, key, true, body.fill(key, n));
            publish(s, ch, key, true, other.fill(key, n));
        }
        return s;
    }

    private Scenario noId(Channel ch) throws IOException, InterruptedException, TimeoutException {
        Scenario s = new Scenario(
                "no-id",
                "one body published twice without "
                        + (keyHeader == null ? "a message-id" : "the " + keyHeader + " header")
                        + " (its {{key}} still filled, so the effects can be counted): reported, not judged");
        s.judged = false;
        String key = freshKey();
        String b = body.fill(key, sequence.get());
        publish(s, ch, key, false, b);
        publish(s, ch, key, false, b);
        return s;
    }

    private Scenario timed(Scenario s) {
        progress.accept(String.format(
                java.util.Locale.ROOT,
                "probe: %s done, %d keys, %d messages, %.1f s",
                s.name,
                s.keys.size(),
                s.histogram.getTotalCount(),
                (System.nanoTime() - s.started) / 1e9));
        return s;
    }

    private List<ScenarioVerdict> count(List<EffectsQuery> queries, List<Scenario> scenarios) {
        Map<String, Boolean> keys = new LinkedHashMap<>();
        for (Scenario s : scenarios) {
            for (String key : s.keys.keySet()) {
                keys.put(key, s.judged);
            }
        }
        Map<String, List<Long>> effects =
                EffectsQuery.countAll(() -> DriverManager.getConnection(jdbcUrl), queries, keys, settle, lostAfter);
        return scenarios.stream().map(s -> s.verdict(effects)).toList();
    }

    /** One scenario's messages. */
    private static final class Scenario {
        final String name;
        final String description;
        final long started = System.nanoTime();
        final Map<String, List<String>> keys = new LinkedHashMap<>();
        final Histogram histogram = new Histogram(3_600_000_000L, 3);
        final List<String> notes = new ArrayList<>();
        boolean judged = true;

        Scenario(String name, String description) {
            this.name = name;
            this.description = description;
        }

        void record(String key, String outcome, long micros) {
            keys.computeIfAbsent(key, k -> new ArrayList<>()).add(outcome);
            if (micros > 0) {
                histogram.recordValue(Math.min(micros, histogram.getHighestTrackableValue()));
            }
        }

        ScenarioVerdict verdict(Map<String, List<Long>> effects) {
            List<KeyResult> results = new ArrayList<>();
            Map<String, Long> outcomes = new TreeMap<>();
            List<String> findings = new ArrayList<>();
            for (Map.Entry<String, List<String>> e : keys.entrySet()) {
                List<Long> counts = effects.getOrDefault(e.getKey(), List.of());
                // A message the broker confirmed is one the service was asked to process: 0 effects is lost.
                KeyResult k = new KeyResult(
                        e.getKey(),
                        e.getValue(),
                        true,
                        counts,
                        judged ? KeyResult.judge(counts, true) : KeyResult.NOT_JUDGED);
                results.add(k);
                e.getValue().forEach(o -> outcomes.merge(o, 1L, Long::sum));
                if (k.broken()) {
                    findings.add(k.key() + ": " + k.effectsText() + " effects (" + k.verdict() + "); "
                            + HttpProbe.summary(k.answers()));
                } else if (!judged) {
                    notes.add(k.key() + ": " + HttpProbe.summary(k.answers()) + "; effects " + k.effectsText()
                            + (counts.stream().anyMatch(n -> n > 1) ? " (without an id each copy took effect)" : ""));
                }
            }
            return new ScenarioVerdict(
                    name,
                    description,
                    !judged ? ScenarioVerdict.INFO : findings.isEmpty() ? ScenarioVerdict.PASS : ScenarioVerdict.FAIL,
                    results,
                    histogram.getTotalCount(),
                    outcomes,
                    LatencyBucket.percentile(histogram, 50),
                    LatencyBucket.percentile(histogram, 90),
                    LatencyBucket.percentile(histogram, 99),
                    histogram.getTotalCount() == 0 ? 0 : histogram.getMaxValue(),
                    LatencyBucket.of(histogram),
                    findings,
                    notes);
        }
    }

    /** The innermost message of an AMQP client failure (a channel's close reason is in its cause). */
    private static final class UnreachableMessage {
        static String of(Throwable t) {
            Throwable root = t;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
            return m.replaceAll("\\s+", " ");
        }
    }
}
