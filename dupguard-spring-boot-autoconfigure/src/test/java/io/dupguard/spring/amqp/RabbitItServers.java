package io.dupguard.spring.amqp;

import org.springframework.test.context.DynamicPropertyRegistry;

/** The real servers of the RabbitMQ dedup ITs: the local broker and PostgreSQL for store and effects. */
final class RabbitItServers {
    private RabbitItServers() {}

    /** Points the context at PostgreSQL ({@code dupguard.pg.url}) and the broker on 127.0.0.1:5672. */
    static void register(DynamicPropertyRegistry r, String idempotencyTable) {
        r.add(
                "spring.datasource.url",
                () -> System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        r.add("spring.rabbitmq.host", () -> "127.0.0.1");
        r.add("spring.rabbitmq.port", () -> "5672");
        r.add("spring.rabbitmq.username", () -> "guest");
        r.add("spring.rabbitmq.password", () -> "guest");
        r.add("dupguard.jdbc.idempotency-table", () -> idempotencyTable);
        r.add("dupguard.http.enabled", () -> "false");
    }
}
