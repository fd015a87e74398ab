package io.dupguard.lab.probe;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A query counting one key's effects where they land, e.g. {@code select count(*) from payments
 * where request_id = :key}: every {@code :key} becomes a bound parameter ({@code ::text} casts are
 * left alone).
 */
public record EffectsQuery(String sql, String jdbcSql, int parameters) {
    private static final Pattern KEY = Pattern.compile("(?<![:\\w]):key\\b");

    /**
     * @throws ProbeInputException when the query has no {@code :key}
     */
    public static EffectsQuery of(String sql) {
        if (sql == null || sql.isBlank()) {
            throw new ProbeInputException("--effects-sql: a query is required, e.g."
                    + " \"select count(*) from payments where request_id = :key\"");
        }
        Matcher m = KEY.matcher(sql);
        int n = 0;
        StringBuilder jdbc = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(jdbc, "?");
            n++;
        }
        m.appendTail(jdbc);
        if (n == 0) {
            throw new ProbeInputException("--effects-sql: the query must contain :key, the placeholder for each"
                    + " request's key (the probe counts effects key by key), e.g. \"select count(*) from payments"
                    + " where request_id = :key\"; got: " + sql);
        }
        return new EffectsQuery(sql, jdbc.toString(), n);
    }

    /**
     * The effects of {@code key}.
     *
     * @throws ProbeInputException when the query does not return one number
     */
    public long count(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(jdbcSql)) {
            for (int i = 1; i <= parameters; i++) {
                ps.setString(i, key);
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new ProbeInputException("--effects-sql: the query returned no row; it must return one"
                            + " number, the key's effects (select count(*) … where … = :key): " + sql);
                }
                long n = rs.getLong(1);
                if (rs.wasNull()) {
                    throw new ProbeInputException("--effects-sql: the query returned null; it must return one number,"
                            + " the key's effects: " + sql);
                }
                return n;
            }
        }
    }
}
