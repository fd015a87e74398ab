package io.dupguard.examples.payments;

import com.rabbitmq.client.GetResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.support.DefaultMessagePropertiesConverter;

/**
 * Reads a dead-letter queue that other runs may share: takes (acknowledges) only the messages a test
 * is looking for and returns every other one to the queue.
 */
final class DeadLetters {
    private static final DefaultMessagePropertiesConverter PROPERTIES = new DefaultMessagePropertiesConverter();

    private DeadLetters() {}

    /**
     * Waits up to 30 s for exactly one matching message in {@code queue} and takes it.
     *
     * @throws AssertionError if none arrives, or more than one matches
     */
    static Message takeOne(RabbitTemplate rabbit, String queue, Predicate<Message> wanted) {
        List<Message> taken = new ArrayList<>();
        Awaitility.await("a matching message in " + queue)
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    taken.addAll(take(rabbit, queue, wanted));
                    return !taken.isEmpty();
                });
        if (taken.size() != 1) {
            throw new AssertionError(taken.size() + " matching messages in " + queue + ", expected one");
        }
        return taken.get(0);
    }

    /** How often the broker dead-lettered the message (its {@code x-death} count). */
    static long deaths(Message message) {
        Object xDeath = message.getMessageProperties().getHeaders().get("x-death");
        if (!(xDeath instanceof List<?> entries) || entries.isEmpty()) {
            return 0;
        }
        long total = 0;
        for (Object e : entries) {
            total += ((Number) ((Map<?, ?>) e).get("count")).longValue();
        }
        return total;
    }

    private static List<Message> take(RabbitTemplate rabbit, String queue, Predicate<Message> wanted) {
        return rabbit.execute(channel -> {
            List<Message> matched = new ArrayList<>();
            List<Long> others = new ArrayList<>();
            for (GetResponse r = channel.basicGet(queue, false); r != null; r = channel.basicGet(queue, false)) {
                MessageProperties props =
                        PROPERTIES.toMessageProperties(r.getProps(), r.getEnvelope(), StandardCharsets.UTF_8.name());
                Message m = new Message(r.getBody(), props);
                if (wanted.test(m)) {
                    channel.basicAck(r.getEnvelope().getDeliveryTag(), false);
                    matched.add(m);
                } else {
                    others.add(r.getEnvelope().getDeliveryTag());
                }
            }
            for (long tag : others) {
                channel.basicNack(tag, false, true);
            }
            return matched;
        });
    }
}
