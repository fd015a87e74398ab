package io.dupguard.state;

import io.dupguard.DupguardException;

/** A transition that the {@link StateMachine} does not declare; refused before any store is touched. */
public class IllegalTransitionException extends DupguardException {
    private static final long serialVersionUID = 1L;

    /**
     * @param from the current state
     * @param to the requested state, not declared as a successor of {@code from}
     */
    public IllegalTransitionException(Enum<?> from, Enum<?> to) {
        super("transition " + from + " -> " + to + " is not declared");
    }
}
