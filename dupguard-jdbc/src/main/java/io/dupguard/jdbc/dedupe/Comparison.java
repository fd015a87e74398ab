package io.dupguard.jdbc.dedupe;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * How two key values are compared when looking for duplicates (guarantee K6). Exact is the default; the
 * others can be combined ({@code trim,ignore-case}). Comparisons apply to character columns only;
 * other columns always compare exactly.
 */
public enum Comparison {
    /** Byte-exact: {@code DB00x} and {@code Db00X} are different keys (binary collation on MySQL). */
    EXACT("exact"),
    /** {@code DB00x} and {@code Db00X} are the same key, as under a case-insensitive collation. */
    IGNORE_CASE("ignore-case"),
    /** Leading and trailing spaces do not count. */
    TRIM("trim"),
    /** Unicode NFC normalisation: {@code é} written as one or as two code points is one key (PostgreSQL). */
    NFC("nfc");

    private final String cliName;

    Comparison(String cliName) {
        this.cliName = cliName;
    }

    /**
     * The name used on the command line, e.g. {@code ignore-case}.
     *
     * @return the command-line name; never null
     */
    public String cliName() {
        return cliName;
    }

    /**
     * Parses a comma-separated list such as {@code ignore-case,trim}.
     *
     * @param list comma-separated names; not null
     * @return the set without {@link #EXACT} (an empty set means exact)
     * @throws IllegalArgumentException naming the unknown entry and the known ones
     */
    public static Set<Comparison> parse(String list) {
        EnumSet<Comparison> set = EnumSet.noneOf(Comparison.class);
        for (String part : (list == null ? "" : list).split(",")) {
            String p = part.trim().toLowerCase(Locale.ROOT).replace('_', '-');
            if (p.isEmpty()) {
                continue;
            }
            Comparison c = Arrays.stream(values())
                    .filter(v -> v.cliName.equals(p))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("--compare: unknown comparison '" + part.trim()
                            + "'; known: exact, ignore-case, trim, nfc"));
            set.add(c);
        }
        set.remove(EXACT);
        return set;
    }

    /**
     * The command-line spelling of a set: {@code exact} for the empty set.
     *
     * @param set the comparisons; not null
     * @return the comma-separated names, or {@code exact}
     */
    public static String describe(Set<Comparison> set) {
        return set.isEmpty()
                ? EXACT.cliName
                : set.stream().map(Comparison::cliName).collect(Collectors.joining(","));
    }
}
