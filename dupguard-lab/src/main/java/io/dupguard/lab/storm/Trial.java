package io.dupguard.lab.storm;

import java.util.List;
import java.util.SplittableRandom;

/**
 * One strategy's run of a workload: fresh tables and stores, the requests, the server-side
 * handling of one attempt, and the check of the database afterwards. The driver calls {@link
 * #serve} from many threads at once; everything else from one thread.
 */
public interface Trial extends AutoCloseable {

    /**
     * Logical request {@code seq} of client {@code client}; unique within the trial. Draw every
     * random choice from {@code random} so that a seed reproduces the same requests.
     */
    Request newRequest(int client, long seq, SplittableRandom random);

    /**
     * A tampered duplicate of an acknowledged request: the same key with a different payload, which
     * must be refused (SPEC K3). Null if the workload has no such thing.
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

    /** Counts the effects in the database, after every attempt has finished. */
    Effects check(List<Sent> ledger) throws Exception;

    /** Releases the trial's stores and connections; the tables stay for inspection. */
    @Override
    default void close() {}
}
