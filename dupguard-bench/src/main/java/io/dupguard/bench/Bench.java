package io.dupguard.bench;

import io.dupguard.idempotency.Fingerprint;

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
