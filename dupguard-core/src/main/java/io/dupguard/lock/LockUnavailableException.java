package io.dupguard.lock;

import io.dupguard.DupguardException;
import java.time.Duration;

/** {@link LockProvider#acquire} waited the full wait time and the lock was still held. */
public class LockUnavailableException extends DupguardException {
    private static final long serialVersionUID = 1L;

    /** The name of the lock that could not be acquired (serialized). */
    private final String name;

    /**
     * @param name the lock name
     * @param waited how long the caller waited for it
     */
    public LockUnavailableException(String name, Duration waited) {
        super("lock '" + name + "' still held by another owner after waiting " + waited);
        this.name = name;
    }

    /**
     * The name of the lock that could not be acquired.
     *
     * @return the lock name; never null
     */
    public String name() {
        return name;
    }
}
