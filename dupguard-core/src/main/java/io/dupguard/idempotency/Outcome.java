package io.dupguard.idempotency;

import java.util.Objects;

/**
 * The result of {@link Idempotency#execute}: the value, and whether this call ran the work ({@link
 * Kind#FIRST}) or replayed the result stored by the call that did ({@link Kind#REPLAYED}).
 *
 * @param <T> the type of the value; may be null when the work returned null
 */
public final class Outcome<T> {
    /** Whether the work ran in this call. */
    public enum Kind {
        /** This call ran the work. */
        FIRST,
        /** An earlier call ran the work; this is its stored result. */
        REPLAYED
    }

    private final Kind kind;
    private final T value;

    private Outcome(Kind kind, T value) {
        this.kind = kind;
        this.value = value;
    }

    /**
     * An outcome of a call that ran the work.
     *
     * @param <T> the result type
     * @param value the work's result; may be null
     * @return the outcome
     */
    public static <T> Outcome<T> first(T value) {
        return new Outcome<>(Kind.FIRST, value);
    }

    /**
     * An outcome of a call that replayed a stored result.
     *
     * @param <T> the result type
     * @param value the replayed result; may be null
     * @return the outcome
     */
    public static <T> Outcome<T> replayed(T value) {
        return new Outcome<>(Kind.REPLAYED, value);
    }

    /**
     * Whether this call ran the work ({@code FIRST}) or replayed a stored result ({@code
     * REPLAYED}).
     *
     * @return the kind; never null
     */
    public Kind kind() {
        return kind;
    }

    /**
     * The work's result (possibly null).
     *
     * @return the result; may be null
     */
    public T value() {
        return value;
    }

    /**
     * True when this call did not run the work.
     *
     * @return true for a replay
     */
    public boolean isReplay() {
        return kind == Kind.REPLAYED;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Outcome<?> other && kind == other.kind && Objects.equals(value, other.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, value);
    }

    @Override
    public String toString() {
        return "Outcome[" + kind + ", " + value + "]";
    }
}
