package io.dupguard.lab.probe;

import java.util.List;

/**
 * One logical request of a scenario: its key, what the client was answered, and its effects.
 *
 * @param key the idempotency key (also filled into the body's {@code {{key}}})
 * @param answers every attempt's outcome in order ({@code 201}, {@code 409}, {@code cut after
 *     10ms}, …)
 * @param succeeded whether any attempt was answered with success (2xx)
 * @param effects the count of each effects query for this key, in the order the queries were given
 * @param verdict {@code once}, {@code duplicate}, {@code lost} (0 effects after a success), {@code
 *     none} (0 effects, never answered with success) or {@code not judged}
 */
public record KeyResult(String key, List<String> answers, boolean succeeded, List<Long> effects, String verdict) {
    public static final String ONCE = "once";
    public static final String DUPLICATE = "duplicate";
    public static final String LOST = "lost";
    public static final String NONE = "none";
    public static final String NOT_JUDGED = "not judged";

    public KeyResult {
        answers = List.copyOf(answers);
        effects = List.copyOf(effects);
    }

    /** Whether this key took effect more than once or not at all after a success. */
    public boolean broken() {
        return DUPLICATE.equals(verdict) || LOST.equals(verdict);
    }

    /** {@code 1}, or {@code 1/1} with several queries. */
    public String effectsText() {
        return String.join("/", effects.stream().map(String::valueOf).toList());
    }

    static String judge(List<Long> effects, boolean succeeded) {
        if (effects.stream().anyMatch(n -> n > 1)) {
            return DUPLICATE;
        }
        if (effects.stream().anyMatch(n -> n == 0)) {
            return succeeded ? LOST : NONE;
        }
        return ONCE;
    }
}
