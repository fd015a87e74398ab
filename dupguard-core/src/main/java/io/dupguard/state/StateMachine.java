package io.dupguard.state;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Declared transitions and terminal states of an entity's status (guarantee O3): an order goes READY →
 * PAYING → SUCCESS | FAIL and never back. Stores apply a transition with a guarded update ({@code
 * … WHERE id = ? AND status = ?}), so of many concurrent duplicates exactly one applies it.
 *
 * <pre>{@code
 * StateMachine<OrderStatus> orders = StateMachine.builder(OrderStatus.class)
 *         .transition(READY, PAYING)
 *         .transition(PAYING, SUCCESS, FAIL)
 *         .build();
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 *
 * @param <S> the enum of states
 */
public final class StateMachine<S extends Enum<S>> {
    private final Class<S> type;
    private final Map<S, Set<S>> transitions;

    private StateMachine(Class<S> type, Map<S, Set<S>> transitions) {
        this.type = type;
        this.transitions = transitions;
    }

    /**
     * A builder for a machine over the states of {@code type}.
     *
     * @param type the enum of states
     * @param <S> the state type
     * @return a new builder, not thread-safe
     * @throws NullPointerException if {@code type} is null
     */
    public static <S extends Enum<S>> Builder<S> builder(Class<S> type) {
        return new Builder<>(type);
    }

    /**
     * The enum of states.
     *
     * @return the enum class; never null
     */
    public Class<S> type() {
        return type;
    }

    /**
     * Whether {@code from → to} is declared.
     *
     * @param from the current state; not null
     * @param to the target state; not null
     * @return true if the transition is declared
     */
    public boolean allows(S from, S to) {
        return transitions.getOrDefault(from, Set.of()).contains(to);
    }

    /**
     * States without outgoing transitions.
     *
     * @return the terminal states; unmodifiable, possibly empty
     */
    public Set<S> terminalStates() {
        EnumSet<S> terminal = EnumSet.noneOf(type);
        for (S s : type.getEnumConstants()) {
            if (transitions.getOrDefault(s, Set.of()).isEmpty()) {
                terminal.add(s);
            }
        }
        return terminal;
    }

    /**
     * @param from the current state; not null
     * @param to the target state; not null
     * @throws IllegalTransitionException if {@code from → to} is not declared
     */
    public void check(S from, S to) {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        if (!allows(from, to)) {
            throw new IllegalTransitionException(from, to);
        }
    }

    /**
     * Parses a stored status, naming the type on failure.
     *
     * @param stored the stored status, the constant's name; not null
     * @return the state of that name
     */
    public S parse(String stored) {
        try {
            return Enum.valueOf(type, stored.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("stored status '" + stored + "' is not a " + type.getSimpleName(), e);
        }
    }

    /**
     * Builder; not thread-safe.
     *
     * @param <S> the enum of states
     */
    public static final class Builder<S extends Enum<S>> {
        private final Class<S> type;
        private final EnumMap<S, EnumSet<S>> transitions;

        private Builder(Class<S> type) {
            this.type = Objects.requireNonNull(type, "type");
            this.transitions = new EnumMap<>(type);
        }

        /**
         * Declares {@code from → to} for each target.
         *
         * @param from the source state; not null
         * @param to the target states; not null, each not null
         * @return this builder
         */
        @SafeVarargs
        public final Builder<S> transition(S from, S... to) {
            Objects.requireNonNull(from, "from");
            EnumSet<S> targets = transitions.computeIfAbsent(from, k -> EnumSet.noneOf(type));
            for (S t : to) {
                if (Objects.requireNonNull(t, "to") == from) {
                    throw new IllegalArgumentException("a transition must change the state: " + from + " -> " + t);
                }
                targets.add(t);
            }
            return this;
        }

        /**
         * Builds the machine.
         *
         * @return the immutable, thread-safe machine
         */
        public StateMachine<S> build() {
            EnumMap<S, Set<S>> copy = new EnumMap<>(type);
            transitions.forEach((k, v) -> copy.put(k, Collections.unmodifiableSet(EnumSet.copyOf(v))));
            return new StateMachine<>(type, Collections.unmodifiableMap(copy));
        }
    }
}
