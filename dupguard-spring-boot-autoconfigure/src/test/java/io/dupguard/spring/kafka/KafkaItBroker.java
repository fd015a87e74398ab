package io.dupguard.spring.kafka;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * One in-process KRaft broker (Kafka as Spring Boot's BOM manages it) for every Kafka IT of the
 * build's JVM: started on first use, stopped when the JVM ends.
 */
final class KafkaItBroker {
    private static EmbeddedKafkaKraftBroker broker;

    /** The header the Kafka ITs' producers put each message's id in, as dupguard.kafka.key=header reads it. */
    static final String MESSAGE_ID = "message-id";

    private KafkaItBroker() {}

    /** The record's {@link #MESSAGE_ID} header as text; null without one. */
    static String messageId(ConsumerRecord<?, ?> r) {
        var h = r.headers().lastHeader(MESSAGE_ID);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /** The bootstrap servers of the broker, starting it if needed. */
    static synchronized String bootstrapServers() {
        if (broker == null) {
            EmbeddedKafkaKraftBroker b = new EmbeddedKafkaKraftBroker(1, 4).kafkaPorts(0);
            b.brokerProperty(
                    "log.dirs",
                    System.getProperty("java.io.tmpdir") + "/dupguard-kafka-"
                            + ProcessHandle.current().pid());
            // one partition for the group offsets: the first group of the build starts seconds sooner
            b.brokerProperty("offsets.topic.num.partitions", "1");
            b.afterPropertiesSet();
            Runtime.getRuntime().addShutdownHook(new Thread(b::destroy, "kafka-it-broker-stop"));
            broker = b;
        }
        return broker.getBrokersAsString();
    }

    /**
     * The properties every Kafka IT context shares: this broker, PostgreSQL for the store and the
     * effects, the dedup keyed by the {@link #MESSAGE_ID} header.
     */
    static void register(
            org.springframework.test.context.DynamicPropertyRegistry r, String groupId, String idemTable, int pool) {
        r.add("spring.kafka.bootstrap-servers", KafkaItBroker::bootstrapServers);
        r.add("spring.kafka.consumer.auto-offset-reset", () -> "earliest");
        r.add("spring.kafka.consumer.group-id", () -> groupId);
        // a seek (every retry of an error handler) waits for the fetch in flight: keep it short
        r.add("spring.kafka.consumer.fetch-max-wait", () -> "50ms");
        r.add(
                "spring.datasource.url",
                () -> System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        r.add("spring.datasource.hikari.maximum-pool-size", () -> String.valueOf(pool));
        r.add("dupguard.jdbc.idempotency-table", () -> idemTable);
        r.add("dupguard.http.enabled", () -> "false");
        r.add("dupguard.kafka.key", () -> "header");
    }

    /** Creates topics of 4 partitions. */
    static void topics(String... names) {
        bootstrapServers();
        broker.addTopics(names);
    }
}
