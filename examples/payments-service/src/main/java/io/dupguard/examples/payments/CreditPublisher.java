package io.dupguard.examples.payments;

import io.dupguard.retry.RetrySchedule;
import io.dupguard.retry.TaskContext;
import io.dupguard.retry.TaskOptions;
import io.dupguard.spring.retry.RetryTaskHandler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageBuilder;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.CorrelationData;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * The outbox's publisher: the retry log runs this handler for every {@value #TYPE} task once the
 * request that enqueued it has committed, and again until it succeeds. It publishes the credit with
 * {@code message-id} = the payment reference and waits for the broker's publisher confirm; a nack,
 * an unroutable message or no confirm in time fails the task, and the retry log runs it again. A
 * crash after the send and before the task completes publishes the credit a second time: the
 * listener's dedup by message-id turns that copy into an acknowledgement.
 */
@Component
public class CreditPublisher implements RetryTaskHandler {
    /** The task type. */
    public static final String TYPE = "payments.publish-credit";

    private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(10);

    private final RabbitTemplate rabbit;
    private final JsonMapper json;
    private final String queue;

    public CreditPublisher(RabbitTemplate rabbit, JsonMapper json, @Value("${payments.credits.queue}") String queue) {
        this.rabbit = rabbit;
        this.json = json;
        this.queue = queue;
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public TaskOptions options() {
        // A broker outage of minutes is retried; after a day of failures a person is alerted.
        return TaskOptions.custom()
                .schedule(RetrySchedule.steppedBuilder()
                        .steps(
                                Duration.ofSeconds(1),
                                Duration.ofSeconds(5),
                                Duration.ofSeconds(30),
                                Duration.ofMinutes(2))
                        .maxAttempts(720)
                        .build())
                .moneyRelated(true)
                .build();
    }

    @Override
    public void handle(TaskContext task) throws Exception {
        Credit credit = json.readValue(task.payloadText(), Credit.class);
        CrashPoints.reach("before-publish", credit.paymentRef());
        MessageProperties properties = new MessageProperties();
        properties.setMessageId(credit.paymentRef());
        properties.setContentType(MessageProperties.CONTENT_TYPE_JSON);
        Message message = MessageBuilder.withBody(task.payloadText().getBytes(StandardCharsets.UTF_8))
                .andProperties(properties)
                .build();
        CorrelationData confirm = new CorrelationData(credit.paymentRef());
        rabbit.send("", queue, message, confirm);
        CorrelationData.Confirm answer = confirm.getFuture().get(CONFIRM_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (!answer.ack()) {
            throw new AmqpException("the broker refused credit " + credit.paymentRef() + ": " + answer.reason());
        }
        if (confirm.getReturned() != null) {
            throw new AmqpException("credit " + credit.paymentRef() + " was not routed to " + queue + ": "
                    + confirm.getReturned().getReplyText());
        }
        CrashPoints.reach("after-publish", credit.paymentRef());
    }
}
