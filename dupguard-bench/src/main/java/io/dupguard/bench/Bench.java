package io.dupguard.bench;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.jdbc.SqlDialect;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.HexFormat;

/** What every implementation shares: scope, fingerprint, and a sink for results. */
final class Bench {
    /** Scope of every dupguard key (the hand-written rows store the same value where they have a scope column). */
    static final String SCOPE = "bench";

    /**
     * A real (non-empty) fingerprint, computed once outside the timed path: every row stores the same
     * 64 hex characters and checks them on a duplicate, and nobody hashes per call.
     */
    static final Fingerprint FINGERPRINT = Fingerprint.ofString("POST /orders {\"sku\":\"bench\",\"qty\":1}");

    static final String FINGERPRINT_HEX = FINGERPRINT.hex();

    /** The fingerprint's 32 bytes, as the shipped MySQL/MariaDB DDL stores it ({@code VARBINARY(32)}). */
    static final byte[] FINGERPRINT_BYTES = HexFormat.of().parseHex(FINGERPRINT_HEX);

    /** Binds the fingerprint as dupguard's shipped table of that dialect stores it. */
    static void bindStoreFingerprint(PreparedStatement ps, int index, SqlDialect dialect) throws SQLException {
        if (dialect == SqlDialect.MYSQL) {
            ps.setBytes(index, FINGERPRINT_BYTES);
        } else {
            ps.setString(index, FINGERPRINT_HEX);
        }
    }

    /** Whether column {@code index} of dupguard's shipped table holds {@link #FINGERPRINT}. */
    static boolean storeFingerprintMatches(ResultSet rs, int index, SqlDialect dialect) throws SQLException {
        return dialect == SqlDialect.MYSQL
                ? Arrays.equals(FINGERPRINT_BYTES, rs.getBytes(index))
                : FINGERPRINT_HEX.equals(rs.getString(index));
    }

    /** Length of the SQL rows' response (issue 12: "a 200-byte response"). */
    static final int RESPONSE_LENGTH = 200;

    private static final String PAD = "x".repeat(RESPONSE_LENGTH);

    private Bench() {}

    /** The SQL rows' work result: {@code "ok-<seq>-xxx…"}, {@value #RESPONSE_LENGTH} ASCII characters. */
    static String response(long seq) {
        String head = "ok-" + seq + "-";
        return head + PAD.substring(Math.min(head.length(), RESPONSE_LENGTH));
    }

    /** Keeps a result alive for the JIT; fails loudly if a replay returned nothing. */
    static void consume(String value) {
        if (value == null || !value.startsWith("ok-")) {
            throw new IllegalStateException("unexpected result '" + value + "'");
        }
    }
}
