/**
 * Spring Integration on dupguard locks: {@link io.dupguard.integration.DupguardLockRegistry} is a
 * {@code LockRegistry} whose locks are dupguard leases.
 */
package io.dupguard.integration;
