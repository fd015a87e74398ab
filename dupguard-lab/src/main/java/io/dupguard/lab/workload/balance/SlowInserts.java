package io.dupguard.lab.workload.balance;

import io.dupguard.lab.storm.Service;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Locale;
import java.util.concurrent.Callable;
import javax.sql.DataSource;

/**
 * A data source whose {@code INSERT}s are slow: the attempt's injected latency is spent when its
 * first {@code INSERT} is prepared. That puts the pause where every balance strategy is slow in
 * the same way — between its check and its insert, and inside the lock for the lock-based ones —
 * even for {@link io.dupguard.jdbc.CreateOnce}, which has no hook of its own for it. Checks and
 * re-reads stay fast.
 */
final class SlowInserts {
    private static final ThreadLocal<Service> PENDING = new ThreadLocal<>();

    private SlowInserts() {}

    /** {@code dataSource}, with the pause of the attempt running {@link #during} before its first insert. */
    static DataSource wrap(DataSource dataSource) {
        return proxy(DataSource.class, dataSource, (m, args) -> {
            Object result = invoke(dataSource, m, args);
            return result instanceof Connection c && m.getName().equals("getConnection") ? connection(c) : result;
        });
    }

    /** Runs one attempt's work; the first insert it prepares spends {@code service}'s pause. */
    static <T> T during(Service service, Callable<T> work) throws Exception {
        PENDING.set(service);
        try {
            return work.call();
        } finally {
            PENDING.remove();
        }
    }

    private static Connection connection(Connection c) {
        return proxy(Connection.class, c, (m, args) -> {
            if (m.getName().equals("prepareStatement") && args != null && args[0] instanceof String sql) {
                pauseIfInsert(sql);
            }
            return invoke(c, m, args);
        });
    }

    private static void pauseIfInsert(String sql) {
        Service pending = PENDING.get();
        if (pending != null && sql.stripLeading().toUpperCase(Locale.ROOT).startsWith("INSERT")) {
            PENDING.remove(); // one pause per attempt, however many statements follow
            pending.pause();
        }
    }

    @FunctionalInterface
    private interface Handler {
        Object handle(Method method, Object[] args) throws Throwable;
    }

    private static <T> T proxy(Class<T> type, T target, Handler handler) {
        Object proxy = Proxy.newProxyInstance(
                SlowInserts.class.getClassLoader(), new Class<?>[] {type}, (p, m, args) -> handler.handle(m, args));
        return type.cast(proxy);
    }

    private static Object invoke(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
