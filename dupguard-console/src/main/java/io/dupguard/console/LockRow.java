package io.dupguard.console;

import java.time.Instant;

/**
 * A held lock.
 *
 * @param provider {@code jdbc} or {@code redis}
 * @param name the lock name
 * @param owner the holder's owner token
 * @param fence the fencing token of the current holder (the fence counter), or -1 if unknown
 * @param leaseEnd when the lease ends by the store's clock
 * @param now the store's clock at the read
 */
public record LockRow(String provider, String name, String owner, long fence, Instant leaseEnd, Instant now) {}
