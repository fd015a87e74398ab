package io.dupguard.lab.workload.credit;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.LabSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The accounts ({@code <name>}: id, amount), the audit of every credit applied ({@code
 * <name>_applied}, one row per application, written in the same transaction as the balance — the
 * checker's ground truth), the processed markers of the dupguard strategy ({@code <name>_done},
 * unique credit id) and the naive strategy's hand-made retry table ({@code <name>_retry}).
 */
final class CreditTable {
    static final int ACCOUNTS = 16;

    final String name;
    final String applied;
    final String done;
    final String retry;
    final String dedup;
    final DataSource dataSource;
    private final LabSql sql;
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

    CreditTable(LabEnvironment env, String name) {
        this.name = name;
        this.applied = name + "_applied";
        this.done = name + "_done";
        this.retry = name + "_retry";
        this.dedup = name + "_dedup";
        this.dataSource = env.dataSource();
        this.sql = env.sql();
    }

    void recreate() throws SQLException {
        LabSql.recreate(
                dataSource,
                new String[] {name, applied, done, retry, dedup},
                "CREATE TABLE " + name + " (id " + sql.key(32) + " PRIMARY KEY, amount_cents BIGINT NOT NULL)",
                "CREATE TABLE " + applied + " (credit_id " + sql.key(64) + ", account " + sql.key(32)
                        + ", amount_cents BIGINT NOT NULL)",
                "CREATE TABLE " + done + " (credit_id " + sql.key(64) + " PRIMARY KEY)",
                "CREATE TABLE " + retry + " (credit_id " + sql.key(64) + " PRIMARY KEY)",
                "CREATE TABLE " + dedup + " (credit_id " + sql.key(64) + " PRIMARY KEY, account " + sql.key(32) + ")");
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps =
                        c.prepareStatement("INSERT INTO " + name + " (id, amount_cents) VALUES (?, 0)")) {
            for (int i = 0; i < ACCOUNTS; i++) {
                ps.setString(1, account(i));
                ps.executeUpdate();
            }
        }
    }

    static String account(int i) {
        return String.format("acct-%02d", i);
    }

    /** Numbers the attempts of a credit that reach the service: 0 for the first. */
    int attempt(Credit c) {
        return attempts.computeIfAbsent(c.creditId(), k -> new AtomicInteger()).getAndIncrement();
    }

    /** Whether attempt {@code n} fails before writing, as the credit's script says. */
    static boolean failsBeforeWrite(Credit c, int n) {
        return c.fault() == Credit.Fault.ALWAYS_FAILS || (n == 0 && c.fault() == Credit.Fault.FAILS_BEFORE_WRITE);
    }

    /** Whether attempt {@code n} loses its answer after its write committed. */
    static boolean answerLost(Credit c, int n) {
        return n == 0 && c.fault() == Credit.Fault.LOST_AFTER_WRITE;
    }

    void logRetry(Credit c) throws SQLException {
        try (Connection conn = dataSource.getConnection();
                PreparedStatement ps = conn.prepareStatement(sql.insertIgnore(retry, "credit_id", "?"))) {
            ps.setString(1, c.creditId());
            ps.executeUpdate();
        }
    }

    java.util.List<String> retries() throws SQLException {
        return new java.util.ArrayList<>(
                query("SELECT credit_id, 0 FROM " + retry).keySet());
    }

    void retried(String creditId) throws SQLException {
        try (Connection conn = dataSource.getConnection();
                PreparedStatement ps = conn.prepareStatement("DELETE FROM " + retry + " WHERE credit_id = ?")) {
            ps.setString(1, creditId);
            ps.executeUpdate();
        }
    }

    /** The E4 dedup-table row of a credit; a second insert is a unique violation. */
    void dedupInsert(Connection c, Credit credit) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO " + dedup + " (credit_id, account) VALUES (?, ?)")) {
            ps.setString(1, credit.creditId());
            ps.setString(2, credit.account());
            ps.executeUpdate();
        }
    }

    void audit(Connection c, Credit credit) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO " + applied + " (credit_id, account, amount_cents) VALUES (?, ?, ?)")) {
            ps.setString(1, credit.creditId());
            ps.setString(2, credit.account());
            ps.setLong(3, credit.amountCents());
            ps.executeUpdate();
        }
    }

    long balance(Connection c, String account) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT amount_cents FROM " + name + " WHERE id = ?")) {
            ps.setString(1, account);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Account → balance. */
    Map<String, Long> balances() throws SQLException {
        return query("SELECT id, amount_cents FROM " + name);
    }

    /** Credit id → number of times it was applied. */
    Map<String, Long> applications() throws SQLException {
        return query("SELECT credit_id, COUNT(*) FROM " + applied + " GROUP BY credit_id");
    }

    /** Account → sum of the amounts of the distinct credits applied to it. */
    Map<String, Long> uniqueCredits() throws SQLException {
        return query("SELECT account, SUM(amount_cents) FROM (SELECT DISTINCT credit_id, account, amount_cents FROM "
                + applied + ") u GROUP BY account");
    }

    private Map<String, Long> query(String select) throws SQLException {
        Map<String, Long> out = new LinkedHashMap<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement(select);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.put(rs.getString(1), rs.getLong(2));
            }
        }
        return out;
    }
}
