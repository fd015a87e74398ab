package io.dupguard.lab.workload.locks;

import io.dupguard.lab.storm.Request;

/**
 * "Take the resource's lock, work, then write the resource."
 *
 * @param requestId the logical request; the key
 * @param resource which protected row; every writer of it takes the lock named after it
 * @param stalls whether this request's first attempt stalls past its lease while holding the lock
 *     (a stop-the-world GC pause, a slow disk): the simulation's script
 */
record Write(String requestId, String resource, boolean stalls) implements Request {
    @Override
    public String key() {
        return requestId;
    }
}
