package io.dupguard.jdbc;

import java.util.regex.Pattern;

/** Validates identifiers that are spliced into SQL (table names); values are always bound. */
final class SqlIdentifier {
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private SqlIdentifier() {}

    static String check(String identifier, String field) {
        if (identifier == null || !PLAIN.matcher(identifier).matches()) {
            throw new IllegalArgumentException(field + " must be a plain SQL identifier matching " + PLAIN.pattern()
                    + ", was '" + identifier + "'");
        }
        return identifier;
    }
}
