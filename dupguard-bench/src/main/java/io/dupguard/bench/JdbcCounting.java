package io.dupguard.bench;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * A {@link DataSource} wrapper that counts what reaches the pool and the driver: connection
 * checkouts, executed statements, commits, rollbacks and autocommit switches. Used only by the
 * audit (single-threaded, untimed), never in a measured run.
 */
final class JdbcCounting {
    private static final Set<String> EXECUTES =
            Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate", "executeBatch");

    final AtomicLong checkouts = new AtomicLong();
    final AtomicLong statements = new AtomicLong();
    final AtomicLong commits = new AtomicLong();
    final AtomicLong rollbacks = new AtomicLong();
    final AtomicLong autoCommitSwitches = new AtomicLong();

    /** A snapshot, per call. */
    record Counts(double checkouts, double statements, double commits, double rollbacks, double autoCommitSwitches) {}

    void reset() {
        checkouts.set(0);
        statements.set(0);
        commits.set(0);
        rollbacks.set(0);
        autoCommitSwitches.set(0);
    }

    Counts perCall(int calls) {
        return new Counts(
                checkouts.get() / (double) calls,
                statements.get() / (double) calls,
                commits.get() / (double) calls,
                rollbacks.get() / (double) calls,
                autoCommitSwitches.get() / (double) calls);
    }

    DataSource wrap(DataSource target) {
        return proxy(DataSource.class, target, (method, args) -> {
            Object result = invoke(target, method, args);
            if (method.getName().equals("getConnection")) {
                checkouts.incrementAndGet();
                return connection((Connection) result);
            }
            return result;
        });
    }

    private Connection connection(Connection target) {
        return proxy(Connection.class, target, (method, args) -> {
            String name = method.getName();
            switch (name) {
                case "commit" -> commits.incrementAndGet();
                case "rollback" -> rollbacks.incrementAndGet();
                case "setAutoCommit" -> autoCommitSwitches.incrementAndGet();
                default -> {}
            }
            Object result = invoke(target, method, args);
            if (result instanceof Statement st && (name.equals("prepareStatement") || name.equals("createStatement"))) {
                return statement(st, method.getReturnType());
            }
            return result;
        });
    }

    private Statement statement(Statement target, Class<?> type) {
        @SuppressWarnings("unchecked")
        Class<Statement> iface = (Class<Statement>) type;
        return proxy(iface, target, (method, args) -> {
            if (EXECUTES.contains(method.getName())) {
                statements.incrementAndGet();
            }
            return invoke(target, method, args);
        });
    }

    @FunctionalInterface
    private interface Handler {
        Object handle(Method method, Object[] args) throws Throwable;
    }

    private static <T> T proxy(Class<T> iface, Object target, Handler handler) {
        InvocationHandler h = (p, method, args) -> {
            if (method.getName().equals("equals") && args != null && args.length == 1) {
                return p == args[0];
            }
            if (method.getName().equals("hashCode") && (args == null || args.length == 0)) {
                return System.identityHashCode(p);
            }
            if (method.getName().equals("unwrap") && args != null && args.length == 1) {
                Class<?> wanted = (Class<?>) args[0];
                return wanted.isInstance(p) ? p : invoke(target, method, args);
            }
            if (method.getName().equals("isWrapperFor") && args != null && args.length == 1) {
                return ((Class<?>) args[0]).isInstance(p) || (boolean) invoke(target, method, args);
            }
            return handler.handle(method, args);
        };
        return iface.cast(Proxy.newProxyInstance(JdbcCounting.class.getClassLoader(), new Class<?>[] {iface}, h));
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
