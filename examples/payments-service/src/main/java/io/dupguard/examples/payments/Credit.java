package io.dupguard.examples.payments;

import java.math.BigDecimal;

/**
 * A credit to apply to an account: the payload of the publish task and the body of the message.
 *
 * @param paymentRef the payment's reference; also the message-id, the consumer's dedup key
 * @param account the account to credit
 * @param amount the amount, positive
 */
public record Credit(String paymentRef, String account, BigDecimal amount) {}
