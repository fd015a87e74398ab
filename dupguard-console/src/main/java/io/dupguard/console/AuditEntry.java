package io.dupguard.console;

import java.time.Instant;

/**
 * One accepted operator action, as the audit table keeps it.
 *
 * @param id the entry's id, increasing
 * @param at when, by the database's clock
 * @param actor who (the authenticated user name)
 * @param action what: {@code unblock}, {@code cancel}, {@code run-now}, {@code bulk-unblock}, …
 * @param target what it acted on: {@code task 17}, {@code key payments/abc}, {@code lock jdbc:x}
 * @param reason the operator's reason
 * @param before the state before, as a short JSON object
 * @param after the state after, as a short JSON object
 */
public record AuditEntry(
        long id, Instant at, String actor, String action, String target, String reason, String before, String after) {}
