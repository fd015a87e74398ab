/**
 * dupguard: make an operation take effect once even when it is retried, double-clicked,
 * re-delivered or replayed concurrently. Feature packages: {@link io.dupguard.idempotency}.
 */
package io.dupguard;
