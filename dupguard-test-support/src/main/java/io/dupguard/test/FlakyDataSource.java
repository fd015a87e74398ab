package io.dupguard.test;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} in front of a real pool that can refuse connections for a while, standing in
 * for a database that cannot be reached (the refusal is the same {@link SQLException} a pool throws
 * when its server is down). Everything else goes to the real pool and the real server.
 */
public final class FlakyDataSource implements DataSource, StoreOutage {
    private final DataSource real;
    private volatile long refuseUntilNanos = System.nanoTime();
    private final AtomicInteger refuseNext = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();

    /**
     * A data source that hands out {@code real}'s connections while no outage is on.
     *
     * @param real the data source of the store under test; not null
     */
    public FlakyDataSource(DataSource real) {
        this.real = Objects.requireNonNull(real, "real");
    }

    /** Refuses every connection for {@code duration} from now. */
    @Override
    public void begin(Duration duration) {
        refuseUntilNanos = System.nanoTime() + duration.toNanos();
    }

    /**
     * Refuses the next {@code n} connection requests.
     *
     * @param n how many requests to refuse; 0 stops refusing
     */
    public void refuseNext(int n) {
        refuseNext.set(n);
    }

    /**
     * How many connection requests were refused so far.
     *
     * @return the count, by outage or by {@link #refuseNext}
     */
    public int refused() {
        return refused.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        refuseIfDown();
        return real.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        refuseIfDown();
        return real.getConnection(username, password);
    }

    private void refuseIfDown() throws SQLException {
        boolean down = System.nanoTime() - refuseUntilNanos < 0 || refuseNext.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
        if (down) {
            refused.incrementAndGet();
            throw new SQLTransientConnectionException("connection refused (injected outage)", "08001");
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return real.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        real.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        real.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return real.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return real.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : real.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || real.isWrapperFor(iface);
    }
}
