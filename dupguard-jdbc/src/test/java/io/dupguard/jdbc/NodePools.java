package io.dupguard.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * One pool per server, handed out in turn: threads that share this data source work on all the
 * servers at once — on every node of a Galera cluster, like machines each connected to its own.
 */
final class NodePools implements DataSource, AutoCloseable {
    private final List<HikariDataSource> pools;
    private final AtomicInteger next = new AtomicInteger();

    NodePools(List<HikariDataSource> pools) {
        this.pools = List.copyOf(pools);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return pools.get(Math.floorMod(next.getAndIncrement(), pools.size())).getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("the pools log in by their URLs");
    }

    @Override
    public void close() {
        pools.forEach(HikariDataSource::close);
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
