package io.dupguard.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;

/**
 * Wraps a real {@link DataSource} so that every call the code makes on its connections and
 * statements is recorded by name ({@code setAutoCommit false}, {@code commit}, {@code execute START
 * TRANSACTION}, {@code prepareStatement}, …), while the calls still reach the real server.
 */
final class CallRecorder {
    private CallRecorder() {}

    static DataSource wrap(DataSource ds, List<String> calls) {
        return proxy(DataSource.class, ds, calls);
    }

    private static <T> T proxy(Class<T> type, Object target, List<String> calls) {
        InvocationHandler handler = (p, method, args) -> {
            String name = method.getName();
            switch (name) {
                case "setAutoCommit" -> calls.add("setAutoCommit " + args[0]);
                case "commit", "rollback", "createStatement" -> calls.add(name);
                case "prepareStatement" -> calls.add(name + " " + args[0]);
                case "execute", "executeUpdate", "executeQuery" -> {
                    if (target instanceof Statement
                            && args != null
                            && args.length > 0
                            && args[0] instanceof String sql) {
                        calls.add(name + " " + sql);
                    }
                }
                default -> {}
            }
            Object result = invoke(method, target, args);
            if (result instanceof Connection c) {
                return proxy(Connection.class, c, calls);
            }
            if (result instanceof Statement st && !(st instanceof java.sql.PreparedStatement)) {
                return proxy(Statement.class, st, calls);
            }
            return result;
        };
        return type.cast(Proxy.newProxyInstance(CallRecorder.class.getClassLoader(), new Class<?>[] {type}, handler));
    }

    private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
