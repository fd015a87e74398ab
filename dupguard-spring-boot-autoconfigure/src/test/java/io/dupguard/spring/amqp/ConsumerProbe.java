package io.dupguard.spring.amqp;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.listener.ListenerContainerConsumerFailedEvent;
import org.springframework.context.event.EventListener;

/**
 * An auto-delete queue for one consumer, and a count of its container's consumers that failed.
 * A failure of the dedup thrown bare from the advice chain ends the consumer's loop: the container
 * restarts the consumer and RabbitMQ deletes the queue, with the messages requeued in it. Register
 * {@link #queue()} and the probe itself as beans; its {@code @EventListener} counts the failures.
 */
final class ConsumerProbe {
    final String name;
    private final AtomicInteger failures = new AtomicInteger();

    ConsumerProbe(String name) {
        this.name = name;
    }

    /** The probe queue: not durable, not exclusive, auto-delete. */
    Queue queue() {
        return new Queue(name, false, false, true);
    }

    /** How many consumers of the probe queue's container have failed (and been restarted) so far. */
    int failures() {
        return failures.get();
    }

    @EventListener
    public void consumerFailed(ListenerContainerConsumerFailedEvent event) {
        if (event.getSource() instanceof AbstractMessageListenerContainer c
                && List.of(c.getQueueNames()).contains(name)) {
            failures.incrementAndGet();
        }
    }
}
