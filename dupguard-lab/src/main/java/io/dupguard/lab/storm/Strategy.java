package io.dupguard.lab.storm;

import java.util.Objects;
import java.util.Set;

/**
 * One way of handling a workload's requests, named on the command line ({@code --strategy}).
 *
 * @param name lower-case, hyphenated, unique within its workload
 * @param family naive (expected to fail) or dupguard (must hold)
 * @param summary one line on what it does, for {@code --list} and the reports
 * @param needs servers it needs beyond the database; without them it is left out of a default run
 */
public record Strategy(String name, Family family, String summary, Set<Need> needs) {
    public Strategy {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(summary, "summary");
        needs = Set.copyOf(needs);
    }

    public static Strategy naive(String name, String summary, Need... needs) {
        return new Strategy(name, Family.NAIVE, summary, Set.of(needs));
    }

    public static Strategy dupguard(String name, String summary, Need... needs) {
        return new Strategy(name, Family.DUPGUARD, summary, Set.of(needs));
    }
}
