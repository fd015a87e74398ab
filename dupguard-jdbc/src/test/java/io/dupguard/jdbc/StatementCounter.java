package io.dupguard.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Wraps a real {@link DataSource} and counts the round trips its users send: every {@code
 * execute…} call on a statement (a JDBC batch, one {@code executeBatch}, counts once: the drivers
 * send it in one go).
 */
final class StatementCounter {
    private static final Set<String> EXECUTES = Set.of(
            "execute", "executeQuery", "executeUpdate", "executeLargeUpdate", "executeBatch", "executeLargeBatch");

    private StatementCounter() {}

    static DataSource wrap(DataSource ds, AtomicLong count) {
        return proxy(DataSource.class, ds, count);
    }

    private static <T> T proxy(Class<T> type, Object target, AtomicLong count) {
        return type.cast(Proxy.newProxyInstance(
                StatementCounter.class.getClassLoader(), new Class<?>[] {type}, (p, method, args) -> {
                    if (target instanceof Statement && EXECUTES.contains(method.getName())) {
                        count.incrementAndGet();
                    }
                    Object result;
                    try {
                        result = method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("unwrap")) {
                        return result; // the driver's own object, as asked for
                    }
                    if (result instanceof Connection c) {
                        return proxy(Connection.class, c, count);
                    }
                    if (result instanceof java.sql.PreparedStatement ps) {
                        return proxy(java.sql.PreparedStatement.class, ps, count);
                    }
                    if (result instanceof Statement st) {
                        return proxy(Statement.class, st, count);
                    }
                    return result;
                }));
    }
}
