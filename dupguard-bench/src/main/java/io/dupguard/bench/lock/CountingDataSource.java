package io.dupguard.bench.lock;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} wrapper that counts what an implementation asks of the pool and the driver:
 * connection checkouts, executed statements, commits, rollbacks, autocommit switches and isolation
 * reads and writes (on PostgreSQL reading the isolation runs a query, on MariaDB switching
 * autocommit or isolation does). Used by the audit only, on its own pool; measured rows never go
 * through it.
 */
final class CountingDataSource implements DataSource {
    static final String CHECKOUTS = "checkouts";
    static final String STATEMENTS = "statements";
    static final String COMMITS = "commits";
    static final String ROLLBACKS = "rollbacks";
    static final String AUTOCOMMIT = "setAutoCommit";
    static final String ISOLATION_READS = "getTransactionIsolation";
    static final String ISOLATION_WRITES = "setTransactionIsolation";

    private static final Set<String> EXECUTES =
            Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate", "executeBatch");

    private final DataSource target;
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

    CountingDataSource(DataSource target) {
        this.target = target;
    }

    void reset() {
        counts.clear();
    }

    Map<String, Long> snapshot() {
        Map<String, Long> out = new TreeMap<>();
        counts.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    private void count(String what) {
        counts.computeIfAbsent(what, k -> new LongAdder()).increment();
    }

    @Override
    public Connection getConnection() throws SQLException {
        count(CHECKOUTS);
        return wrap(target.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        count(CHECKOUTS);
        return wrap(target.getConnection(user, password));
    }

    private Connection wrap(Connection c) {
        InvocationHandler h = (proxy, m, args) -> {
            switch (m.getName()) {
                case "commit" -> count(COMMITS);
                case "rollback" -> count(ROLLBACKS);
                case "setAutoCommit" -> count(AUTOCOMMIT);
                case "getTransactionIsolation" -> count(ISOLATION_READS);
                case "setTransactionIsolation" -> count(ISOLATION_WRITES);
                default -> {}
            }
            Object result = invoke(c, m, args);
            if (result instanceof CallableStatement s) {
                return wrapStatement(s, CallableStatement.class);
            }
            if (result instanceof PreparedStatement s) {
                return wrapStatement(s, PreparedStatement.class);
            }
            if (result instanceof Statement s) {
                return wrapStatement(s, Statement.class);
            }
            return result;
        };
        return (Connection)
                Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
    }

    private <S extends Statement> S wrapStatement(S s, Class<S> type) {
        InvocationHandler h = (proxy, m, args) -> {
            if (EXECUTES.contains(m.getName())) {
                count(STATEMENTS);
            }
            return invoke(s, m, args);
        };
        return type.cast(Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {type}, h));
    }

    private static Object invoke(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        return target.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || target.isWrapperFor(iface);
    }
}
