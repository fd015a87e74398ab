package io.dupguard.lab.storm;

/** One logical request of a workload; every attempt and duplicate of it carries the same value. */
public interface Request {

    /** The business key the workload deduplicates on (an OpenID, a request id). */
    String key();
}
