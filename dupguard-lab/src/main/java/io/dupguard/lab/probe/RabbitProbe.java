package io.dupguard.lab.probe;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import io.dupguard.lab.env.UnreachableException;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The message scenarios against a RabbitMQ queue a running service consumes, each on fresh keys
 * (the message-id, or a header of the user's), with the effects counted per key by the user's
 * queries. Built by {@link Probe#rabbitmq(String)}; {@link #run()} checks the input, then
 * publishes and returns the verdicts. With {@link #launch} or {@link #restart}, the kill scenario
 * runs last.
 */
public final class RabbitProbe extends MessageProbe<RabbitProbe> {
    /** The scenarios, in the order they run; {@code kill} only with {@code launch} or {@code restart}. */
    public static final List<String> SCENARIOS =
            List.of("published-n-times", "redelivery", "changed-body", "no-id", "kill");

    private final String uri;
    private String queue;
    private String exchange = "";
    private String routingKey;
    private String keyHeader;

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

    /** Carries the key in this header instead of the {@code message-id} property. */
    public RabbitProbe keyHeader(String name) {
        this.keyHeader = name == null || name.isBlank() ? null : name.strip();
        return this;
    }

    /** {@code publish amqp://127.0.0.1:5672 queue credits} (no credentials) */
    @Override
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
    @Override
    public ProbeReport run() {
        long start = System.nanoTime();
        if (queue == null || queue.isBlank()) {
            throw new ProbeInputException("--queue: the queue the service consumes is required");
        }
        List<EffectsQuery> queries = checkInput();
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(uri);
        } catch (Exception e) {
            throw new ProbeInputException("--uri: not an AMQP URI (amqp://user:password@host:port/vhost): " + uri);
        }
        factory.setConnectionTimeout(5000);
        List<MessageScenario> done = new ArrayList<>();
        ServiceProcess service = null;
        try (com.rabbitmq.client.Connection conn = factory.newConnection("dupguard-probe")) {
            ConsumerSeen seen = new ConsumerSeen(conn);
            service = service(seen);
            if (service != null && service.launched()) {
                service.start(); // before the effects check: a service may create its tables at start-up
            }
            checkEffects(queries);
            try (Channel check = conn.createChannel()) {
                AMQP.Queue.DeclareOk q = check.queueDeclarePassive(queue);
                if (q.getConsumerCount() == 0) {
                    throw new UnreachableException("--queue " + queue + ": no consumer; start the service first", null);
                }
            } catch (IOException e) {
                throw new UnreachableException("--queue " + queue + ": " + rootMessage(e), e);
            }
            Channel ch = conn.createChannel();
            ch.confirmSelect();
            done.add(publishedNTimes(ch).done(progress));
            done.add(redelivery(conn, ch).done(progress));
            done.add(changedBodyScenario("message", (sc, key, value, i) -> publish(sc, ch, key, true, value))
                    .done(progress));
            done.add(noId(ch).done(progress));
            if (service != null) {
                Channel burstChannel = conn.createChannel();
                burstChannel.confirmSelect();
                done.add(kill(
                                service,
                                seen::reset,
                                (s, key, text, i) -> publish(s, burstChannel, key, true, text),
                                () -> seen.ready() == 0)
                        .done(progress));
            }
            // Counted while a launched service still runs: what it redelivers to itself lands.
            return report(start, queries, done);
        } catch (IOException | TimeoutException e) {
            throw new UnreachableException("--uri " + target() + ": " + rootMessage(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            if (service != null) {
                service.close();
            }
        }
    }

    /**
     * The broker's view of the service, as the readiness of a service without {@code --health}: a
     * consumer on the queue. After a kill, the old consumer's connection must first be seen gone
     * (or 2 s pass, for a restart faster than the probe looks).
     */
    private final class ConsumerSeen implements java.util.function.Supplier<String> {
        private final com.rabbitmq.client.Connection conn;
        private volatile boolean seenNone = true;
        private volatile long killed = System.nanoTime();

        ConsumerSeen(com.rabbitmq.client.Connection conn) {
            this.conn = conn;
        }

        void reset() {
            seenNone = false;
            killed = System.nanoTime();
        }

        private AMQP.Queue.DeclareOk declare() throws IOException {
            try (Channel c = conn.createChannel()) {
                return c.queueDeclarePassive(queue);
            } catch (TimeoutException e) {
                throw new IOException(e);
            }
        }

        /** Messages ready on the queue (-1 when it cannot be read). */
        int ready() {
            try {
                return declare().getMessageCount();
            } catch (IOException e) {
                return -1;
            }
        }

        @Override
        public String get() {
            int consumers;
            try {
                consumers = declare().getConsumerCount();
            } catch (IOException e) {
                return "--queue " + queue + ": " + rootMessage(e);
            }
            if (consumers == 0) {
                seenNone = true;
                return "no consumer on queue " + queue;
            }
            if (seenNone || System.nanoTime() - killed > 2_000_000_000L) {
                return null;
            }
            return "the killed service's consumer still on queue " + queue;
        }
    }

    private void publish(MessageScenario s, Channel ch, String key, boolean withKey, String text)
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

    private MessageScenario publishedNTimes(Channel ch) throws IOException, InterruptedException, TimeoutException {
        MessageScenario s = new MessageScenario(
                "published-n-times",
                "per key, the same message (same id, same body) published " + copies + " times in a burst: a publisher"
                        + " retrying, an outbox sending again");
        for (int i = 0; i < keys; i++) {
            String key = freshKey();
            String b = body.fill(key, n());
            for (int c = 0; c < copies; c++) {
                publish(s, ch, key, true, b);
            }
        }
        return s;
    }

    private MessageScenario redelivery(com.rabbitmq.client.Connection conn, Channel ch)
            throws IOException, InterruptedException, TimeoutException {
        MessageScenario s = new MessageScenario(
                "redelivery",
                "per key, one message taken by a consumer of the probe's own (consumer priority 100, ahead of the"
                        + " service's), which nacks it with requeue: the broker redelivers it to the service");
        for (int i = 0; i < keys; i++) {
            String key = freshKey();
            String b = body.fill(key, n());
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
                            try {
                                mine.basicNack(d.getEnvelope().getDeliveryTag(), false, true);
                            } catch (IOException | com.rabbitmq.client.AlreadyClosedException closing) {
                                // cancelled or closing: an unacknowledged message goes back to the queue
                                // anyway, and a callback that throws would make the client close the channel
                            }
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

    private MessageScenario noId(Channel ch) throws IOException, InterruptedException, TimeoutException {
        MessageScenario s = new MessageScenario(
                "no-id",
                "one body published twice without "
                        + (keyHeader == null ? "a message-id" : "the " + keyHeader + " header")
                        + " (its {{key}} still filled, so the effects can be counted): reported, not judged");
        s.judged = false;
        String key = freshKey();
        String b = body.fill(key, n());
        publish(s, ch, key, false, b);
        publish(s, ch, key, false, b);
        return s;
    }
}
