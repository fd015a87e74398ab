package io.dupguard.lab.storm;

import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * One strategy's run of a workload: fresh tables and stores, the requests, the server-side
 * handling of one attempt, and the check of the database afterwards. The driver calls {@link
 * #serve} from many server threads at once and {@link #newRequest} and {@link #tamper} from many
 * client threads at once; {@link #settle}, {@link #check} and {@link #close} from one thread after
 * every attempt has finished.
 */
public interface Trial extends AutoCloseable {

    /**
     * Logical request {@code seq} of client {@code client}; unique within the trial. Draw every
     * random choice from {@code random} so that a seed reproduces the same requests.
     *
     * <p>Preparing a request may reach the store (the order the user is about to pay, a form
     * rendered with its token), and under a fault that can fail: throw the {@link SQLException} or
     * {@link io.dupguard.StoreUnavailableException}. The client then sees an error page and asks
     * again for the same {@code seq}, so preparing it twice must be harmless.
     *
     * @throws SQLException if the lab's own tables could not be written
     */
    Request newRequest(int client, long seq, SplittableRandom random) throws SQLException;

    /**
     * A tampered duplicate of an acknowledged request: the same key with a different payload, which
     * must be refused (guarantee K3). Null if the workload has no such thing.
     */
    default Request tamper(Request original, SplittableRandom random) {
        return null;
    }

    /**
     * Handles one attempt, server side. Every attempt runs to completion, even when its client has
     * long timed out and retried. Throw {@link Refused} (or a dupguard rejection) to say no.
     *
     * @return the answer the client sees; replays must equal the first answer
     */
    Object serve(Request request, Service service) throws Exception;

    /**
     * Whether {@code later}, an answer to a request already answered with {@code first}, tells the
     * client the same thing. Equal by default; a workload whose first answer may be provisional
     * ("payment pending") says which later answers complete it.
     */
    default boolean answersAgree(Object first, Object later) {
        return Objects.equals(first, later);
    }

    /**
     * Runs what the service itself does once the requests have stopped and every attempt has
     * finished — a retry scheduler working off its retry log (guarantee R1) — before {@link #check}.
     */
    default void settle() throws Exception {}

    /** Counts the effects in the database, after every attempt has finished and {@link #settle}. */
    Effects check(List<Sent> ledger) throws Exception;

    /** Releases the trial's stores and connections; the tables stay for inspection. */
    @Override
    default void close() {}
}
