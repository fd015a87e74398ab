package io.dupguard.state;

import java.util.Objects;

/**
 * What a guarded state transition did (guarantee O3). Contention and duplicates are results, not
 * exceptions.
 *
 * @param <S> the enum of states
 */
public sealed interface TransitionResult<S extends Enum<S>>
        permits TransitionResult.Applied, TransitionResult.AlreadyApplied, TransitionResult.Rejected {

    /**
     * This caller made the transition (the guarded update changed one row).
     *
     * @param <S> the enum of states
     * @param from the state the entity was in
     * @param to the state it is in now
     */
    record Applied<S extends Enum<S>>(S from, S to) implements TransitionResult<S> {}

    /**
     * The entity is already in the target state: a duplicate of a transition someone made.
     *
     * @param <S> the enum of states
     * @param state the state the entity was already in, the transition's target
     */
    record AlreadyApplied<S extends Enum<S>>(S state) implements TransitionResult<S> {}

    /**
     * The entity is in another state from which this transition is not possible (or it does not
     * exist: {@code current} is then null).
     *
     * @param <S> the enum of states
     * @param current the entity's state, or null if it does not exist
     */
    record Rejected<S extends Enum<S>>(S current) implements TransitionResult<S> {}

    /**
     * Whether this caller made the transition.
     *
     * @return true only for {@link Applied}
     */
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
