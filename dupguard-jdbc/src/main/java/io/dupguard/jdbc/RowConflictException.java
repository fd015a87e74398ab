package io.dupguard.jdbc;

import io.dupguard.DupguardException;

/** A row with the same key exists but differs in a verified column (guarantee K3). */
public class RowConflictException extends DupguardException {
    private static final long serialVersionUID = 1L;

    /**
     * @param table the table
     * @param key the key values of the existing row
     * @param column the verified column that differs
     */
    public RowConflictException(String table, String key, String column) {
        super("a row with key " + key + " already exists in " + table + " with a different " + column);
    }
}
