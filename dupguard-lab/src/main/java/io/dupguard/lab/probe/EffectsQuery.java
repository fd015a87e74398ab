package io.dupguard.lab.probe;

import io.dupguard.lab.env.UnreachableException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    /** Opens a connection to the database the effects land in. */
    interface Connections {
        Connection open() throws SQLException;
    }

    /**
     * Every key's count of every query, after {@code settle} (attempts whose clients gave up may
     * still be running); keys whose 0 would be lost ({@code keys} value true) are counted again
     * every 250 ms while one of their counts is 0, until {@code lostAfter}: effects that land
     * asynchronously (an outbox, a listener).
     */
    static Map<String, List<Long>> countAll(
            Connections db,
            List<EffectsQuery> queries,
            Map<String, Boolean> keys,
            Duration settle,
            Duration lostAfter) {
        Map<String, List<Long>> effects = new LinkedHashMap<>();
        try {
            Thread.sleep(settle.toMillis()); // the service may still be working on what the probe sent
            long deadline = System.nanoTime() + lostAfter.toNanos();
            try (Connection c = db.open()) {
                while (true) {
                    boolean missing = false;
                    for (Map.Entry<String, Boolean> key : keys.entrySet()) {
                        List<Long> counts = new ArrayList<>();
                        for (EffectsQuery q : queries) {
                            counts.add(q.count(c, key.getKey()));
                        }
                        effects.put(key.getKey(), counts);
                        missing |= key.getValue() && counts.contains(0L);
                    }
                    if (!missing || System.nanoTime() > deadline) {
                        return effects;
                    }
                    Thread.sleep(250); // effects that have not landed yet
                }
            }
        } catch (SQLException e) {
            throw new UnreachableException("counting the effects failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
