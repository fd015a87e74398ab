package io.dupguard.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Binds user-supplied text that must compare byte-exactly. On MySQL/MariaDB such columns are
 * VARBINARY (their {@code *_bin} collations still ignore trailing spaces), so the UTF-8 bytes are
 * bound; elsewhere the string itself.
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
        if (dialect == SqlDialect.MYSQL) {
            ps.setBytes(index, value.getBytes(StandardCharsets.UTF_8));
        } else {
            ps.setString(index, value);
        }
    }
}
