package io.dupguard.examples.payments;

import java.math.BigDecimal;
import java.time.Instant;

/** A payment as the API returns it. */
public record Payment(long id, String client, String account, BigDecimal amount, Instant createdAt) {}
