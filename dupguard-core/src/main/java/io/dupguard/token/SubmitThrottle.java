package io.dupguard.token;

import java.time.Duration;

/**
 * At most one submit per subject per window (guarantee T3): "one order per user every 5
 * seconds". The first {@link #tryAcquire} in a window wins; the rest of the window is refused. The
 * window is measured by the store's clock. Thread-safe; a store outage throws {@link
 * io.dupguard.StoreUnavailableException} — it never reads as "allowed".
 */
public interface SubmitThrottle {

    /**
     * @param scope the operation being throttled; a valid identifier, not null
     * @param subject who acts (a user or account id); a valid identifier, not null
     * @param window the shortest interval between two acquisitions; not null, positive
     * @return true if no acquisition for {@code (scope, subject)} happened within the last {@code
     *     window}; the window then starts now
     * @throws io.dupguard.InvalidIdentifierException for a bad scope or subject
     * @throws IllegalArgumentException for a non-positive window
     */
    boolean tryAcquire(String scope, String subject, Duration window);
}
