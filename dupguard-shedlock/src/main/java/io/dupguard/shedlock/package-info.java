/**
 * ShedLock on dupguard locks: {@link io.dupguard.shedlock.DupguardShedLockProvider} is a ShedLock
 * {@code LockProvider} over any dupguard {@link io.dupguard.lock.LockProvider}, and {@link
 * io.dupguard.shedlock.ShedLockFence} gives a running job its fencing token.
 */
package io.dupguard.shedlock;
