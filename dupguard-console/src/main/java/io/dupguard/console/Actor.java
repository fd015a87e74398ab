package io.dupguard.console;

import java.util.Objects;

/**
 * Who is asking, and what they may do: a viewer reads, an operator also acts.
 *
 * @param name the authenticated user's name, recorded in the audit
 * @param operator whether the user holds the operator role
 */
public record Actor(String name, boolean operator) {
    /**
     * Checks the name.
     *
     * @param name the authenticated user's name; not null
     * @param operator whether the user holds the operator role
     */
    public Actor {
        Objects.requireNonNull(name, "name");
    }
}
