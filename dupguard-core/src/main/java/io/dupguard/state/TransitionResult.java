package io.dupguard.state;

import java.util.Objects;

/**
 * What a guarded state transition did (SPEC O3). Contention and duplicates are results, not
 * exceptions.
 */
public sealed interface TransitionResult<S extends Enum<S>>
        permits TransitionResult.Applied, TransitionResult.AlreadyApplied, TransitionResult.Rejected {

    /** This caller made the transition (the guarded update changed one row). */
    record Applied<S extends Enum<S>>(S from, S to) implements TransitionResult<S> {}

    /** The entity is already in the target state: a duplicate of a transition someone made. */
    record AlreadyApplied<S extends Enum<S>>(S state) implements TransitionResult<S> {}

    /**
     * The entity is in another state from which this transition is not possible (or it does not
     * exist: {@code current} is then null).
     */
    record Rejected<S extends Enum<S>>(S current) implements TransitionResult<S> {}

    /** Whether this caller made the transition. */
    default boolean applied() {
        return this instanceof Applied;
    }

    /**
     * The result of a transition this caller made.
     *
     * @param from the state before
     * @param to the state after
     * @param <S> the state type
     * @return {@link Applied}
     * @throws NullPointerException if {@code from} or {@code to} is null
     */
    static <S extends Enum<S>> TransitionResult<S> applied(S from, S to) {
        return new Applied<>(Objects.requireNonNull(from), Objects.requireNonNull(to));
    }
}
