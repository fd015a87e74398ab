package io.dupguard.spring;

import org.springframework.jdbc.core.JdbcTemplate;

/** The effect table of the listener ITs: one row per run of a listener, by message id. */
public final class EffectRows {
    private EffectRows() {}

    /** Creates the effect table {@code table}. */
    public static void create(JdbcTemplate jdbc, String table) {
        jdbc.execute("create table " + table + " (id bigserial primary key, message_id text not null)");
    }

    /** Drops the tables an IT created. */
    public static void drop(JdbcTemplate jdbc, String... tables) {
        for (String t : tables) {
            jdbc.execute("drop table if exists " + t);
        }
    }

    /** Effects of message {@code id}. */
    public static int of(JdbcTemplate jdbc, String table, String id) {
        return jdbc.queryForObject("select count(*) from " + table + " where message_id = ?", Integer.class, id);
    }

    /** Effects of the messages whose id starts with {@code prefix}. */
    public static int like(JdbcTemplate jdbc, String table, String prefix) {
        return jdbc.queryForObject(
                "select count(*) from " + table + " where message_id like ?", Integer.class, prefix + "%");
    }

    /** Distinct message ids with an effect among those starting with {@code prefix}. */
    public static int distinctLike(JdbcTemplate jdbc, String table, String prefix) {
        return jdbc.queryForObject(
                "select count(distinct message_id) from " + table + " where message_id like ?",
                Integer.class,
                prefix + "%");
    }

    /**
     * Idempotency records (table {@code idemTable}) of the keys starting with {@code prefix} that
     * their claim wrote completed, keeping its owner token — a completion clears it: the
     * transactional listeners' one-write path, with no completion UPDATE — and the rows of such keys
     * in the processed-messages table ({@code dupguard_processed}), which are written by their claim
     * only.
     */
    public static int recordedByTheirClaim(JdbcTemplate jdbc, String idemTable, String prefix) {
        Integer records = jdbc.queryForObject(
                "select count(*) from " + idemTable + " where idem_key like ? and status = 'C' and owner is not null",
                Integer.class,
                prefix + "%");
        // the processed layout (the listeners' default): one row per message, its claim
        Integer processed = jdbc.queryForObject(
                "select count(*) from dupguard_processed where msg_id like ?", Integer.class, prefix + "%");
        return records + processed;
    }
}
