package io.dupguard.spring.amqp;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.awaitility.Awaitility;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/** Dead-letter queues of the RabbitMQ dedup ITs: a queue that dead-letters into another, and reading it. */
final class RabbitDeadLetters {
    private RabbitDeadLetters() {}

    /** A non-durable, auto-delete queue whose rejected messages go to {@code deadQueue} (default exchange). */
    static Queue queueDeadLetteringTo(String name, String deadQueue) {
        return new Queue(
                name, false, false, true, Map.of("x-dead-letter-exchange", "", "x-dead-letter-routing-key", deadQueue));
    }

    /**
     * Takes the dead letters whose message id starts with {@code prefix} off {@code deadQueue} until
     * {@code expected} ids are found (others are consumed and ignored), and returns, per message id,
     * the reasons RabbitMQ recorded in {@code x-death} (comma-separated if dead-lettered twice).
     */
    static Map<String, String> take(RabbitTemplate rabbit, String deadQueue, String prefix, int expected) {
        Map<String, String> found = new ConcurrentHashMap<>();
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            Message m;
            while ((m = rabbit.receive(deadQueue)) != null) {
                String id = m.getMessageProperties().getMessageId();
                if (id != null && id.startsWith(prefix)) {
                    List<Map<String, ?>> death = m.getMessageProperties().getXDeathHeader();
                    found.merge(id, String.valueOf(death.get(0).get("reason")), (a, b) -> a + "," + b);
                }
            }
            return found.size() >= expected;
        });
        return found;
    }

    /** Boot's listener retry as the starter sets it up (3 attempts, the dedup-aware recoverer), then {@code dedup}. */
    static org.aopalliance.aop.Advice[] boundedRetryThen(org.aopalliance.aop.Advice dedup) {
        org.aopalliance.aop.Advice retry = org.springframework.amqp.rabbit.config.RetryInterceptorBuilder.stateless()
                .maxRetries(2)
                .backOffOptions(1, 1.0, 1)
                .recoverer(DedupAwareRetry.recoverer())
                .build();
        return DedupAwareRetry.withDedup(new org.aopalliance.aop.Advice[] {retry}, dedup);
    }

    /** Publishes {@code prefix}0..n-1 to {@code queue}, each with the body "credit i". */
    static void publishNumbered(RabbitTemplate rabbit, String queue, String prefix, int n) {
        for (int i = 0; i < n; i++) {
            String id = prefix + i;
            rabbit.convertAndSend("", queue, "credit " + i, m -> {
                m.getMessageProperties().setMessageId(id);
                return m;
            });
        }
    }
}
