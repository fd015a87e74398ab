package io.dupguard.lab.env;

import com.zaxxer.hikari.util.DriverDataSource;
import io.dupguard.jdbc.SqlDialect;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The physical connections under the lab's pool, with their server-side ids ({@code
 * pg_backend_pid()}, MariaDB's {@code CONNECTION_ID()}), so that the connection-kill fault
 * terminates only connections the lab itself opened, never another client's.
 */
public final class TrackedConnections implements DataSource {
    private final DataSource driver;
    private final SqlDialect dialect;
    private final Set<Long> ids = ConcurrentHashMap.newKeySet();

    TrackedConnections(String url, SqlDialect dialect) {
        this.driver = new DriverDataSource(url, null, new Properties(), null, null);
        this.dialect = dialect;
    }

    /** Server-side ids of the lab's open connections, as last seen (killed ones may linger). */
    public List<Long> ids() {
        return List.copyOf(ids);
    }

    /** Forgets a connection that was terminated. */
    public void forget(long id) {
        ids.remove(id);
    }

    /** The SQL dialect of the server. */
    public SqlDialect dialect() {
        return dialect;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection c = driver.getConnection();
        String idQuery =
                switch (dialect) {
                    case POSTGRESQL -> "SELECT pg_backend_pid()";
                    case MYSQL -> "SELECT CONNECTION_ID()";
                    default -> null;
                };
        if (idQuery != null) {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(idQuery)) {
                if (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        }
        return c;
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return getConnection();
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
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("not a wrapper for " + iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }
}
