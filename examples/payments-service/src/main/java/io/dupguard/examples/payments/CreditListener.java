package io.dupguard.examples.payments;

import java.math.BigDecimal;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.stereotype.Component;

/** Applies credits; deliveries are deduplicated by message-id (the dedupFactory). */
@Component
public class CreditListener {
    private final Accounts accounts;

    public CreditListener(Accounts accounts) {
        this.accounts = accounts;
    }

    @RabbitListener(queues = PaymentsApplication.CREDITS, containerFactory = "dedupFactory")
    public void onCredit(Message message) {
        String[] parts = new String(message.getBody(), java.nio.charset.StandardCharsets.UTF_8).split(":");
        accounts.credit(
                parts[0],
                new BigDecimal(parts[1]),
                message.getMessageProperties().getMessageId());
    }
}
