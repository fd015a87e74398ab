package io.dupguard.jdbc.dedupe;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Which row of a duplicate group survives: the first row in an ordering of columns, ties broken by
 * the primary key. Rows whose ordering column is NULL come last. Immutable and thread-safe.
 */
public final class Keep {
    /**
     * One column of the ordering.
     *
     * @param column the column; a plain SQL identifier
     * @param descending true if the largest value comes first
     */
    public record Term(String column, boolean descending) {
        /**
         * @param column the column; a plain SQL identifier; not null
         * @param descending true if the largest value comes first
         * @throws NullPointerException if {@code column} is null
         */
        public Term {
            Objects.requireNonNull(column, "column");
        }
    }

    private final List<Term> terms;
    private final String spec;

    private Keep(List<Term> terms, String spec) {
        this.terms = List.copyOf(terms);
        this.spec = spec;
    }

    /**
     * Keeps the row with the earliest value of {@code column} (e.g. {@code created_at}).
     *
     * @param column a timestamp or increasing column; a plain SQL identifier
     * @return the rule
     */
    public static Keep oldest(String column) {
        return new Keep(List.of(new Term(column, false)), "oldest:" + column);
    }

    /**
     * Keeps the row with the lowest value of {@code column} (e.g. {@code id}).
     *
     * @param column the column; a plain SQL identifier
     * @return the rule
     */
    public static Keep lowest(String column) {
        return new Keep(List.of(new Term(column, false)), "lowest:" + column);
    }

    /**
     * Keeps the row with the latest value of {@code column}.
     *
     * @param column a timestamp or increasing column; a plain SQL identifier
     * @return the rule
     */
    public static Keep newest(String column) {
        return new Keep(List.of(new Term(column, true)), "newest:" + column);
    }

    /**
     * Keeps the first row of a custom ordering, e.g. {@code "verified DESC, created_at"}.
     *
     * @param ordering comma-separated columns, each optionally followed by {@code ASC} or {@code
     *     DESC}; not null
     * @return the rule
     */
    public static Keep orderBy(String ordering) {
        List<Term> terms = new ArrayList<>();
        for (String part : ordering.split(",")) {
            String[] words = part.trim().split("\\s+");
            boolean desc = words.length == 2 && words[1].equalsIgnoreCase("desc");
            boolean asc = words.length == 2 && words[1].equalsIgnoreCase("asc");
            if (words[0].isEmpty() || words.length > 2 || (words.length == 2 && !desc && !asc)) {
                throw new IllegalArgumentException(
                        "--keep order: expected 'column [ASC|DESC], ...', was '" + ordering + "'");
            }
            terms.add(new Term(words[0], desc));
        }
        return new Keep(terms, "order:" + ordering);
    }

    /**
     * Parses {@code oldest:COLUMN}, {@code lowest:COLUMN}, {@code newest:COLUMN} or {@code
     * order:COLUMN [DESC],...}.
     *
     * @param spec the rule as given on the command line; not null
     * @return the rule
     * @throws IllegalArgumentException naming the expected forms
     */
    public static Keep parse(String spec) {
        int colon = spec == null ? -1 : spec.indexOf(':');
        if (colon <= 0 || colon == spec.length() - 1) {
            throw new IllegalArgumentException("--keep: expected oldest:COLUMN, lowest:COLUMN, newest:COLUMN or"
                    + " order:COLUMN [DESC],..., was '" + spec + "'");
        }
        String rest = spec.substring(colon + 1).trim();
        return switch (spec.substring(0, colon).trim().toLowerCase(Locale.ROOT)) {
            case "oldest" -> oldest(rest);
            case "lowest" -> lowest(rest);
            case "newest", "highest" -> newest(rest);
            case "order" -> orderBy(rest);
            default ->
                throw new IllegalArgumentException("--keep: unknown rule '" + spec.substring(0, colon)
                        + "'; expected oldest, lowest, newest or order");
        };
    }

    /**
     * The ordering's columns, first decides.
     *
     * @return the terms; unmodifiable, at least one
     */
    public List<Term> terms() {
        return terms;
    }

    @Override
    public String toString() {
        return spec;
    }
}
