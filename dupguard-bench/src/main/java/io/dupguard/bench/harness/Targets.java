package io.dupguard.bench.harness;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import picocli.CommandLine;

/** A benchmark's {@code --targets}: names (with aliases) or "all", run in the canonical order. */
public final class Targets {
    private Targets() {}

    /**
     * The targets {@code names} choose, in the order of {@code all} whatever order they were given
     * in; {@code named} maps a name to a target or throws {@link IllegalArgumentException}.
     */
    public static <E extends Enum<E>> List<E> resolve(List<String> names, E[] all, Function<String, E> named) {
        Set<E> chosen = new LinkedHashSet<>();
        for (String part : names) {
            if (part.isBlank()) {
                continue;
            }
            if (part.trim().equalsIgnoreCase("all")) {
                chosen.addAll(List.of(all));
            } else {
                chosen.add(named.apply(part));
            }
        }
        if (chosen.isEmpty()) {
            throw new IllegalArgumentException("--targets needs at least one target");
        }
        List<E> ordered = new ArrayList<>();
        for (E t : all) {
            if (chosen.contains(t)) {
                ordered.add(t);
            }
        }
        return List.copyOf(ordered);
    }

    /** Checks one name as picocli parses it, so that an unknown target is a usage error naming the option. */
    public static String check(String value, Function<String, ?> named) {
        if (!value.isBlank() && !value.trim().equalsIgnoreCase("all")) {
            try {
                named.apply(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
        return value;
    }
}
