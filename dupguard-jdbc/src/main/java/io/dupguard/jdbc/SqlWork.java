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
    T apply(Connection connection) throws E;
}
