package io.dupguard.redis;

/**
 * Validation of the key prefixes the Redis backends write under. Shared so that every backend of
 * this module accepts the same prefixes with the same messages.
 */
final class RedisKeyPrefix {
    private RedisKeyPrefix() {}

    /**
     * Requires a non-blank prefix without whitespace or control characters (keys must be safe to
     * type into redis-cli and to read in logs) and without braces (the backends add their own hash
     * tag, and a brace in the prefix would become the tag instead).
     *
     * @param field the option's name, for the message
     */
    static String check(String prefix, String field) {
        if (prefix == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        if (prefix.isBlank()) {
            throw new IllegalArgumentException(field + " must not be blank");
        }
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (Character.isWhitespace(c) || Character.isSpaceChar(c) || Character.isISOControl(c)) {
                throw new IllegalArgumentException(
                        field + " must not contain whitespace or control characters (found U+"
                                + String.format("%04X", (int) c) + " at index " + i + ")");
            }
            if (c == '{' || c == '}') {
                throw new IllegalArgumentException(field
                        + " must not contain '{' or '}' because the store adds its own hash tag, was '" + prefix + "'");
            }
        }
        return prefix;
    }
}
