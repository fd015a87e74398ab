package io.dupguard.lab.probe;

import io.dupguard.lab.env.UnreachableException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The message scenarios against a Kafka topic a running service consumes, each on fresh keys (the
 * id in a header, {@code message-id} by default, and optionally in the record key), with the
 * effects counted per key by the user's queries. Built by {@link Probe#kafka(String)}; {@link
 * #run()} checks the input (the broker answers, the topic exists, the service's consumer group has
 * members, the queries count), then publishes and returns the verdicts. With {@link #launch} or
 * {@link #restart}, the kill scenario runs last.
 */
public final class KafkaProbe extends MessageProbe<KafkaProbe> {
    /** The scenarios, in the order they run; {@code kill} only with {@code launch} or {@code restart}. */
    public static final List<String> SCENARIOS =
            List.of("published-n-times", "redelivery", "changed-body", "no-id", "kill");

    private static final Pattern SERVER = Pattern.compile("[^\\s,:]+:\\d{1,5}|\\[[0-9a-fA-F:.]+]:\\d{1,5}");
    private static final Duration BROKER_TIMEOUT = Duration.ofSeconds(10);

    private final String bootstrapServers;
    private String topic;
    private String group;
    private String idHeader = "message-id";
    private boolean idAsRecordKey;
    private final Map<String, String> clientProperties = new LinkedHashMap<>();

    KafkaProbe(String bootstrapServers) {
        this.bootstrapServers =
                Objects.requireNonNull(bootstrapServers, "bootstrapServers").strip();
    }

    /** The topic the service consumes (required). */
    public KafkaProbe topic(String topic) {
        this.topic = topic;
        return this;
    }

    /**
     * The service's consumer group (required): checked for a member consuming the topic before
     * anything is published, and watched for the commit of a record before the redelivery scenario
     * sends it again (for up to the {@link #settle lostAfter}).
     */
    public KafkaProbe group(String group) {
        this.group = group;
        return this;
    }

    /** The header carrying the id (default {@code message-id}). */
    public KafkaProbe idHeader(String name) {
        this.idHeader = name == null || name.isBlank() ? "message-id" : name.strip();
        return this;
    }

    /**
     * Also puts the id in the record key (default false): the copies of a record then land on one
     * partition; without it they are spread over the topic's partitions.
     */
    public KafkaProbe idAsRecordKey(boolean on) {
        this.idAsRecordKey = on;
        return this;
    }

    /**
     * A Kafka client setting for the probe's producer and admin client ({@code security.protocol},
     * {@code sasl.jaas.config}, {@code ssl.truststore.location}, …); may be called again. The
     * bootstrap servers and the serializers stay the probe's.
     */
    public KafkaProbe clientProperty(String key, String value) {
        clientProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
        return this;
    }

    /** {@code publish kafka://127.0.0.1:9092 topic credits group credits-service} */
    @Override
    public String target() {
        return "publish kafka://" + bootstrapServers + " topic " + topic + " group " + group;
    }

    /**
     * Checks the input, publishes every scenario's records and counts the effects.
     *
     * @throws ProbeInputException for input the probe cannot use
     * @throws UnreachableException when the broker, the topic, the group or the database cannot be
     *     used
     */
    @Override
    public ProbeReport run() {
        long start = System.nanoTime();
        if (bootstrapServers.isEmpty()
                || !List.of(bootstrapServers.split(",")).stream()
                        .allMatch(s -> SERVER.matcher(s.strip()).matches())) {
            throw new ProbeInputException(
                    "--bootstrap-servers: host:port[,host:port…] expected, got: " + bootstrapServers);
        }
        if (topic == null || topic.isBlank()) {
            throw new ProbeInputException("--topic: the topic the service consumes is required");
        }
        if (group == null || group.isBlank()) {
            throw new ProbeInputException("--group: the service's consumer group is required");
        }
        List<EffectsQuery> queries = checkInput();
        List<MessageScenario> done = new ArrayList<>();
        ServiceProcess service = null;
        try (Admin admin = client(() -> Admin.create(adminConfig()));
                KafkaProducer<String, byte[]> producer = client(() -> new KafkaProducer<>(producerConfig()))) {
            NewMember member = new NewMember(admin);
            service = service(member);
            if (service != null && service.launched()) {
                service.start(); // before the effects check: a service may create its tables at start-up
            }
            checkEffects(queries);
            int partitions = check(admin);
            done.add(publishedNTimes(producer, partitions).done(progress));
            done.add(redelivery(admin, producer, partitions, service, member).done(progress));
            done.add(changedBodyScenario(
                            "record",
                            (sc, key, value, i) -> publish(sc, producer, key, true, value, i % partitions, "acked"))
                    .done(progress));
            done.add(noId(producer, partitions).done(progress));
            if (service != null) {
                done.add(kill(
                                service,
                                member::reset,
                                (s, key, text, i) -> publish(s, producer, key, true, text, i % partitions, "acked"),
                                () -> caughtUp(admin))
                        .done(progress));
            }
            // Counted while a launched service still runs: what it consumes again after its restart lands.
            return report(start, queries, done);
        } catch (KafkaException | IOException | java.util.concurrent.TimeoutException e) {
            // (a scenario's publisher may throw the last two on other brokers; a Kafka send does not)
            throw new UnreachableException("--bootstrap-servers " + bootstrapServers + ": " + rootMessage(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            if (service != null) {
                service.close();
            }
        }
    }

    /** Whether the group's committed offsets reached the end of every partition of the topic. */
    private boolean caughtUp(Admin admin) {
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(BROKER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
            admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(BROKER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .get(topic)
                    .partitions()
                    .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
                    admin.listOffsets(latest).all().get(BROKER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return ends.entrySet().stream().allMatch(e -> {
                OffsetAndMetadata c = committed.get(e.getKey());
                return e.getValue().offset() == 0
                        || c != null && c.offset() >= e.getValue().offset();
            });
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * The broker's view of the service, as the readiness of a service without {@code --health}: a
     * member of the group consuming the topic that was not one before the kill (a static member
     * rejoining gets a new member id).
     */
    private final class NewMember implements Supplier<String> {
        private final Admin admin;
        private volatile Set<String> before = Set.of();

        NewMember(Admin admin) {
            this.admin = admin;
        }

        void reset() {
            try {
                before = describe().members().stream()
                        .map(MemberDescription::consumerId)
                        .collect(Collectors.toSet());
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                before = Set.of();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }

        ConsumerGroupDescription describe()
                throws ExecutionException, java.util.concurrent.TimeoutException, InterruptedException {
            return admin.describeConsumerGroups(List.of(group))
                    .all()
                    .get(BROKER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .get(group);
        }

        @Override
        public String get() {
            try {
                ConsumerGroupDescription g = describe();
                boolean consumes = g.members().stream()
                        .filter(m -> !before.contains(m.consumerId()))
                        .flatMap(m -> m.assignment().topicPartitions().stream())
                        .anyMatch(tp -> tp.topic().equals(topic));
                return consumes
                        ? null
                        : "no new member of group " + group + " consumes topic " + topic + " (state " + g.groupState()
                                + ", " + g.members().size() + " members)";
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                return "--group " + group + ": " + rootMessage(e.getCause() == null ? e : e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    /**
     * Creates a client; a setting it refuses is bad input ({@code --kafka-property}), a bootstrap
     * server that does not resolve an unreachable broker.
     */
    private <T> T client(Supplier<T> create) {
        try {
            return create.get();
        } catch (KafkaException e) {
            String m = rootMessage(e);
            if (m.contains(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG) || clientProperties.isEmpty()) {
                throw new UnreachableException("--bootstrap-servers " + bootstrapServers + ": " + m, e);
            }
            throw new ProbeInputException("--kafka-property: the Kafka client refused a setting: " + m);
        }
    }

    private Properties adminConfig() {
        Properties p = new Properties();
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) BROKER_TIMEOUT.toMillis());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) BROKER_TIMEOUT.toMillis());
        // the producer's settings are no admin client's: only the shared ones (security, dns, …) go on
        clientProperties.forEach((k, v) -> {
            if (AdminClientConfig.configNames().contains(k)) {
                p.put(k, v);
            }
        });
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "dupguard-probe-admin-" + runId);
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return p;
    }

    private Properties producerConfig() {
        Properties p = new Properties();
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "dupguard-probe-" + runId);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) BROKER_TIMEOUT.toMillis());
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) BROKER_TIMEOUT.toMillis());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) BROKER_TIMEOUT.toMillis() + 5000);
        p.putAll(clientProperties);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }

    /** The topic exists and the group has members; the topic's partition count. */
    private int check(Admin admin) throws InterruptedException {
        TopicDescription t;
        try {
            t = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(BROKER_TIMEOUT.toMillis() + 1000, TimeUnit.MILLISECONDS)
                    .get(topic);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                throw new UnreachableException(
                        "--topic " + topic + ": no such topic on " + bootstrapServers
                                + "; create it, or start the service that creates it",
                        e);
            }
            if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
                throw noBroker(e);
            }
            throw new UnreachableException(
                    "--bootstrap-servers " + bootstrapServers + ": " + rootMessage(e.getCause()), e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw noBroker(e);
        }
        ConsumerGroupDescription g;
        try {
            g = admin.describeConsumerGroups(List.of(group))
                    .all()
                    .get(BROKER_TIMEOUT.toMillis() + 1000, TimeUnit.MILLISECONDS)
                    .get(group);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                throw new UnreachableException(
                        "--group " + group + ": no member of the group consumes topic " + topic
                                + " (no such group); start the service first",
                        e);
            }
            throw new UnreachableException(
                    "--group " + group + ": " + rootMessage(e.getCause() == null ? e : e.getCause()), e);
        }
        boolean consumes = g.members().stream()
                .flatMap(m -> m.assignment().topicPartitions().stream())
                .anyMatch(tp -> tp.topic().equals(topic));
        if (!consumes) {
            throw new UnreachableException(
                    "--group " + group + ": no member of the group consumes topic " + topic + " (state "
                            + g.groupState() + ", " + g.members().size() + " members); start the service first",
                    null);
        }
        return t.partitions().size();
    }

    private UnreachableException noBroker(Exception e) {
        return new UnreachableException(
                "--bootstrap-servers " + bootstrapServers + ": no broker answered within " + BROKER_TIMEOUT.toSeconds()
                        + " s",
                e);
    }

    /**
     * Sends one record and waits for the broker's acknowledgement. Without the id as record key,
     * {@code partition} (modulo the topic's) places it; with it, the key's hash does.
     */
    private RecordMetadata publish(
            MessageScenario s,
            KafkaProducer<String, byte[]> producer,
            String key,
            boolean withId,
            String text,
            int partition,
            String outcome)
            throws InterruptedException {
        ProducerRecord<String, byte[]> r = new ProducerRecord<>(
                topic,
                withId && idAsRecordKey ? null : partition,
                withId && idAsRecordKey ? key : null,
                text.getBytes(StandardCharsets.UTF_8));
        if (withId) {
            r.headers().add(new RecordHeader(idHeader, key.getBytes(StandardCharsets.UTF_8)));
        }
        long t0 = System.nanoTime();
        RecordMetadata m;
        try {
            m = producer.send(r).get();
        } catch (ExecutionException e) {
            throw new UnreachableException(
                    "--topic " + topic + ": publishing failed: " + rootMessage(e.getCause()), e.getCause());
        }
        s.record(key, outcome, Math.max(1, (System.nanoTime() - t0) / 1000));
        return m;
    }

    private MessageScenario publishedNTimes(KafkaProducer<String, byte[]> producer, int partitions)
            throws InterruptedException {
        MessageScenario s = new MessageScenario(
                "published-n-times",
                "per key, the same record (same id, same value) published " + copies + " times in a burst"
                        + (idAsRecordKey
                                ? ", to the key's partition"
                                : ", spread over the " + partitions + " partitions")
                        + ": a producer retrying, an outbox sending again");
        for (int i = 0; i < keys; i++) {
            String key = freshKey();
            String b = body.fill(key, n());
            for (int c = 0; c < copies; c++) {
                publish(s, producer, key, true, b, c % partitions, "acked");
            }
        }
        return s;
    }

    private MessageScenario redelivery(
            Admin admin,
            KafkaProducer<String, byte[]> producer,
            int partitions,
            ServiceProcess service,
            NewMember member)
            throws InterruptedException {
        boolean rewind = service != null && service.launched();
        MessageScenario s = new MessageScenario(
                "redelivery",
                rewind
                        ? "per key, one record; once group " + group + " has committed past it, the service killed,"
                                + " the group's committed offset rewound to the record, the service launched again:"
                                + " it reads the record again"
                        : "per key, one record; once group " + group + " has committed past it, the same record"
                                + " (same id, same value, same partition) again: a redelivery after the consumer's"
                                + " commit");
        Map<TopicPartition, OffsetAndMetadata> rewindTo = new LinkedHashMap<>();
        for (int i = 0; i < keys; i++) {
            String key = freshKey();
            String b = body.fill(key, n());
            RecordMetadata first = publish(s, producer, key, true, b, i % partitions, "acked");
            TopicPartition tp = new TopicPartition(topic, first.partition());
            long deadline = System.nanoTime() + lostAfter.toNanos();
            long t0 = System.nanoTime();
            boolean committed = false;
            while (!committed && System.nanoTime() < deadline) {
                committed = committedOffset(admin, tp) > first.offset();
                if (!committed) {
                    Thread.sleep(50); // polls the group's committed offset
                }
            }
            if (committed) {
                s.notes.add(String.format(
                        java.util.Locale.ROOT,
                        "%s: committed by %s %.2f s after the first publish, then %s",
                        key,
                        group,
                        (System.nanoTime() - t0) / 1e9,
                        rewind ? "rewound" : "sent again"));
            } else {
                s.notes.add(key + ": not committed by " + group + " within " + lostAfter.toSeconds() + " s; "
                        + (rewind ? "rewound" : "sent again") + " anyway");
            }
            if (rewind) {
                rewindTo.merge(tp, new OffsetAndMetadata(first.offset()), (a, c) -> a.offset() <= c.offset() ? a : c);
            } else {
                publish(s, producer, key, true, b, first.partition(), "acked again");
            }
        }
        if (rewind) {
            rewind(admin, service, member, rewindTo, s);
        }
        return s;
    }

    /**
     * Kills the launched service, removes the group's members (a killed static member stays until
     * its session expires, and offsets change only in a group without members), sets the group's
     * committed offsets to {@code offsets} and launches the service again.
     */
    private void rewind(
            Admin admin,
            ServiceProcess service,
            NewMember member,
            Map<TopicPartition, OffsetAndMetadata> offsets,
            MessageScenario s)
            throws InterruptedException {
        member.reset();
        service.kill();
        long deadline = System.nanoTime() + lostAfter.toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (!member.describe().members().isEmpty()) {
                    admin.removeMembersFromConsumerGroup(group, new RemoveMembersFromConsumerGroupOptions())
                            .all()
                            .get(BROKER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                }
                admin.alterConsumerGroupOffsets(group, offsets)
                        .all()
                        .get(BROKER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                last = null;
                break;
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                last = rootMessage(e.getCause() == null ? e : e.getCause());
                Thread.sleep(200); // the group's members leave asynchronously
            }
        }
        long t0 = System.nanoTime();
        service.start();
        if (last != null) {
            s.notes.add("the committed offsets of " + group + " could not be rewound: " + last);
        } else {
            s.notes.add(String.format(
                    java.util.Locale.ROOT,
                    "%s rewound to %s; ready again after %.1f s",
                    group,
                    offsets.entrySet().stream()
                            .map(e ->
                                    e.getKey().partition() + ":" + e.getValue().offset())
                            .collect(Collectors.joining(", ", "partition:offset ", "")),
                    (System.nanoTime() - t0) / 1e9));
        }
    }

    private long committedOffset(Admin admin, TopicPartition tp) throws InterruptedException {
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(BROKER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            OffsetAndMetadata o = offsets.get(tp);
            return o == null ? -1 : o.offset();
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new UnreachableException(
                    "--group " + group + ": reading its committed offsets failed: "
                            + rootMessage(e.getCause() == null ? e : e.getCause()),
                    e);
        }
    }

    private MessageScenario noId(KafkaProducer<String, byte[]> producer, int partitions) throws InterruptedException {
        MessageScenario s = new MessageScenario(
                "no-id",
                "one value published twice without the " + idHeader + " header"
                        + (idAsRecordKey ? " or record key" : "")
                        + " (its {{key}} still filled, so the effects can be counted): reported, not judged");
        s.judged = false;
        String key = freshKey();
        String b = body.fill(key, n());
        publish(s, producer, key, false, b, 0, "acked");
        publish(s, producer, key, false, b, 1 % partitions, "acked");
        return s;
    }
}
