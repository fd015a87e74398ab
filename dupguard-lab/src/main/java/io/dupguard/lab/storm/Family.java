package io.dupguard.lab.storm;

import java.util.Locale;

/** Which side of the comparison a strategy is on. */
public enum Family {
    /** What naive code does: expected to show duplicate effects. */
    NAIVE,
    /** The dupguard way: must show zero duplicate effects and zero lost requests. */
    DUPGUARD;

    /** {@code naive} or {@code dupguard}, as printed and written to JSON. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
