package io.dupguard.console;

/**
 * The result of an action: whether it changed something (and was audited), and what to tell the
 * operator.
 *
 * @param changed true if the action took effect and an audit entry was written
 * @param message what happened, or why nothing changed
 */
public record Outcome(boolean changed, String message) {
    static Outcome done(String message) {
        return new Outcome(true, message);
    }

    static Outcome refused(String message) {
        return new Outcome(false, message);
    }
}
