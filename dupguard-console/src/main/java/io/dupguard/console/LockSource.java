package io.dupguard.console;

import java.util.Optional;

/** A lock provider's store as the console reads it: the held locks, and a release by force. */
interface LockSource {
    /** {@code jdbc} or {@code redis}. */
    String provider();

    /** Held locks by name, at most {@code limit}, after {@code after} (null: from the start). */
    Page<LockRow> held(String after, int limit);

    /** The lock as it is now, if held. */
    Optional<LockRow> find(String name);

    /**
     * Deletes the lock if {@code owner} still holds it; false if not. {@code conn} is the audit's
     * transaction (a JDBC source uses it, so the release and its audit entry commit together).
     */
    boolean release(java.sql.Connection conn, String name, String owner) throws java.sql.SQLException;

    /** Whether {@link #release} runs in {@code conn}'s transaction (rolled back with the audit entry). */
    boolean releasesInTransaction();
}
