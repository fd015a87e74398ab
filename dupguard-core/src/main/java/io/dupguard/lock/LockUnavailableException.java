package io.dupguard.lock;

import io.dupguard.DupguardException;
import java.time.Duration;

/** {@link LockProvider#acquire} waited the full wait time and the lock was still held. */
public class LockUnavailableException extends DupguardException {
    private static final long serialVersionUID = 1L;

    private final String name;

    public LockUnavailableException(String name, Duration waited) {
        super("lock '" + name + "' still held by another owner after waiting " + waited);
        this.name = name;
    }

    public String name() {
        return name;
    }
}
