package io.dupguard.examples.payments;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * Applies credits. Deliveries are deduplicated by message-id (the {@code dedupFactory}), and with
 * dupguard's transactional AMQP mode the dedup claim, the credit and the completion commit in one
 * transaction. A body that cannot be read fails every attempt and ends in the dead-letter queue.
 */
@Component
public class CreditListener {
    private final Accounts accounts;
    private final JsonMapper json;

    public CreditListener(Accounts accounts, JsonMapper json) {
        this.accounts = accounts;
        this.json = json;
    }

    @RabbitListener(queues = "${payments.credits.queue}", containerFactory = "dedupFactory")
    public void onCredit(Message message) {
        Credit credit = json.readValue(message.getBody(), Credit.class);
        accounts.credit(credit.account(), credit.amount(), credit.paymentRef());
    }
}
