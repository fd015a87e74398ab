package io.dupguard.console;

import io.dupguard.StoreUnavailableException;
import io.dupguard.jdbc.SqlDialect;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The console's access to the stores' database: the dialect, the SQL fragments that differ between
 * PostgreSQL, MySQL/MariaDB and H2, and how text and times are bound and read. Text columns that
 * the stores keep as {@code VARBINARY} on MySQL/MariaDB (byte-exact keys) are bound as UTF-8 bytes
 * there.
 */
final class Db {
    /** Work on one connection; an {@link SQLException} becomes {@link StoreUnavailableException}. */
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    final DataSource dataSource;
    final SqlDialect dialect;

    Db(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.dialect = read("detect dialect", SqlDialect::detect);
    }

    <T> T read(String operation, Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            return work.run(c);
        } catch (SQLException e) {
            throw new StoreUnavailableException("jdbc", "console: " + operation + " failed: " + e.getMessage(), e);
        }
    }

    /** Runs {@code work} in one transaction: committed if it returns, rolled back if it throws. */
    <T> T inTransaction(String operation, Work<T> work) {
        try (Connection c = dataSource.getConnection()) {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(auto);
            }
        } catch (SQLException e) {
            throw new StoreUnavailableException("jdbc", "console: " + operation + " failed: " + e.getMessage(), e);
        }
    }

    boolean mysql() {
        return dialect == SqlDialect.MYSQL;
    }

    String now() {
        return switch (dialect) {
            case POSTGRESQL -> "clock_timestamp()";
            case MYSQL -> "UTC_TIMESTAMP(6)";
            case H2 -> "CURRENT_TIMESTAMP";
        };
    }

    String limit() {
        return dialect == SqlDialect.H2 ? " FETCH FIRST ? ROWS ONLY" : " LIMIT ?";
    }

    /** Binds a text column that is VARBINARY on MySQL/MariaDB. */
    void bindText(PreparedStatement ps, int index, String value) throws SQLException {
        if (mysql()) {
            ps.setBytes(index, value.getBytes(StandardCharsets.UTF_8));
        } else {
            ps.setString(index, value);
        }
    }

    String readText(ResultSet rs, int index) throws SQLException {
        if (mysql()) {
            byte[] b = rs.getBytes(index);
            return b == null ? null : new String(b, StandardCharsets.UTF_8);
        }
        return rs.getString(index);
    }

    Instant instant(ResultSet rs, int index) throws SQLException {
        if (mysql()) {
            LocalDateTime t = rs.getObject(index, LocalDateTime.class);
            return t == null ? null : t.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime t = rs.getObject(index, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    /** Binds an instant to a timestamp column, exact to the microsecond (a compare-and-set version). */
    void bindInstant(PreparedStatement ps, int index, Instant t) throws SQLException {
        if (mysql()) {
            ps.setObject(index, LocalDateTime.ofInstant(t, ZoneOffset.UTC));
        } else {
            ps.setObject(index, OffsetDateTime.ofInstant(t, ZoneOffset.UTC));
        }
    }

    /** The database's clock. */
    Instant clock(Connection c) throws SQLException {
        String sql = dialect == SqlDialect.H2 ? "SELECT CURRENT_TIMESTAMP" : "SELECT " + now();
        try (PreparedStatement ps = c.prepareStatement(sql);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return instant(rs, 1);
        }
    }
}
