package io.dupguard.jdbc;

import java.sql.Connection;

/**
 * The caller's own SQL, run on the connection that holds the claim so that both commit or roll back
 * together.
 *
 * @param <T> result type
 * @param <E> the checked exception the work may throw (often {@link java.sql.SQLException})
 */
@FunctionalInterface
public interface SqlWork<T, E extends Exception> {
    /**
     * Runs the caller's SQL.
     *
     * @param connection the connection holding the claim; do not commit, roll back or close it
     * @return the result, possibly null
     * @throws E what the SQL throws
     */
    T apply(Connection connection) throws E;
}
