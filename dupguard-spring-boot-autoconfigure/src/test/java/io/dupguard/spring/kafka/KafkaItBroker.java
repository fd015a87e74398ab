package io.dupguard.spring.kafka;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * One in-process KRaft broker (Kafka as Spring Boot's BOM manages it) for every Kafka IT of the
 * build's JVM: started on first use, stopped when the JVM ends.
 */
final class KafkaItBroker {
    private static EmbeddedKafkaKraftBroker broker;

    private KafkaItBroker() {}

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

    /** Creates topics of 4 partitions. */
    static void topics(String... names) {
        bootstrapServers();
        broker.addTopics(names);
    }
}
