package io.dupguard.examples.payments;

import java.math.BigDecimal;

/** The body of POST /payments. */
public record PaymentRequest(String account, BigDecimal amount) {}
