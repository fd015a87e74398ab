package io.dupguard.examples.bench;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The database half of the hand-written transactional filters: the key's row, written in the
 * request's transaction through the application's {@link JdbcTemplate} (so on the connection that
 * transaction holds).
 *
 * <ol>
 *   <li>{@link #claim}: {@code INSERT … ON CONFLICT (key) DO NOTHING}. A concurrent request with the
 *       key waits on the uncommitted row's lock until the first transaction ends: after a commit its
 *       insert does nothing and it reads the committed row (READ COMMITTED takes a new snapshot per
 *       statement); after a rollback its insert claims the key.
 *   <li>{@link #complete}: {@code UPDATE} the row with the response, then the caller commits.
 * </ol>
 *
 * <p>A committed row always holds a response: the claim and the completion commit together.
 */
final class KeyRows {
    private final JdbcTemplate jdbc;
    private final String table;

    KeyRows(JdbcTemplate jdbc, String table) {
        this.jdbc = jdbc;
        this.table = table;
        jdbc.execute("create table if not exists " + table
                + " (key text primary key, fingerprint text not null, status int not null, response text)");
    }

    /** Null if this transaction claimed the key; else the answer another transaction committed. */
    Answer claim(String key, String fingerprint) {
        if (jdbc.update(
                        "insert into " + table
                                + " (key, fingerprint, status) values (?, ?, 0) on conflict (key) do nothing",
                        key,
                        fingerprint)
                == 1) {
            return null;
        }
        return jdbc.queryForObject(
                "select fingerprint, status, response from " + table + " where key = ?",
                (rs, i) -> new Answer(rs.getString(1), rs.getInt(2), rs.getString(3)),
                key);
    }

    void complete(String key, Answer answer) {
        jdbc.update(
                "update " + table + " set status = ?, response = ? where key = ?", answer.status(), answer.body(), key);
    }
}
