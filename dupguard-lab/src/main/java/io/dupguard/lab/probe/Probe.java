package io.dupguard.lab.probe;

/**
 * Black-box checks that a running service takes each request once: the lab pointed at a service
 * the user names, its effects counted where they land. In a JUnit test against a
 * {@code @SpringBootTest(webEnvironment = RANDOM_PORT)} application:
 *
 * <pre>{@code
 * ProbeReport report = Probe.http("http://127.0.0.1:" + port + "/payments")
 *         .header("Authorization", "Basic …")
 *         .body("{\"account\":\"acc-{{key}}\",\"amount\":\"25.00\"}")
 *         .effects(dataSource, "select count(*) from payments where account = 'acc-' || :key")
 *         .run();
 * assertThat(report.brokenKeys()).isEmpty();
 * }</pre>
 */
public final class Probe {
    private Probe() {}

    /**
     * The HTTP scenarios against {@code url} (loopback unless {@link HttpProbe#allowRemote}).
     *
     * @throws ProbeInputException when {@code url} is not a URL
     */
    public static HttpProbe http(String url) {
        return new HttpProbe(url);
    }

    /**
     * The message scenarios against a queue a running service consumes, over the broker at {@code
     * uri} ({@code amqp://user:password@host:port/vhost}).
     */
    public static RabbitProbe rabbitmq(String uri) {
        return new RabbitProbe(uri);
    }

    /**
     * The message scenarios against a topic a running service consumes, over the Kafka cluster at
     * {@code bootstrapServers} ({@code host:port[,host:port…]}).
     */
    public static KafkaProbe kafka(String bootstrapServers) {
        return new KafkaProbe(bootstrapServers);
    }
}
