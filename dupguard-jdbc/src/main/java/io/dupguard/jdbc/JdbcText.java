package io.dupguard.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Reads and binds user-supplied text that must compare byte-exactly. On MySQL/MariaDB such columns
 * are VARBINARY (their {@code *_bin} collations still ignore trailing spaces), read as UTF-8 bytes.
 * The value is bound as a string on every database: MariaDB/MySQL compare it with a VARBINARY
 * column as the column's binary type (the connection's utf8mb4 bytes), byte for byte, and a sharding
 * proxy can route on it (ShardingSphere-JDBC refuses a {@code byte[]} sharding value: it is not
 * {@link Comparable}).
 */
final class JdbcText {
    private JdbcText() {}

    static String read(java.sql.ResultSet rs, int index, SqlDialect dialect) throws SQLException {
        if (dialect == SqlDialect.MYSQL) {
            byte[] bytes = rs.getBytes(index);
            return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
        }
        return rs.getString(index);
    }

    static void bind(PreparedStatement ps, int index, String value, SqlDialect dialect) throws SQLException {
        ps.setString(index, value);
    }
}
