package io.dupguard.examples.payments;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.UUID;

/** A payment as the API returns it; {@code reference} is derived from the client and its Idempotency-Key. */
public record Payment(long id, UUID reference, String client, String account, BigDecimal amount, Instant createdAt) {}
