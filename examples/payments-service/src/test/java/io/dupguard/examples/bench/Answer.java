package io.dupguard.examples.bench;

/**
 * The stored response of a key in the hand-written filters: the request's fingerprint (SHA-256 of
 * the body, hex), the status and the body. In Redis it is {@code fingerprint|status|body}.
 */
record Answer(String fingerprint, int status, String body) {
    String encode() {
        return fingerprint + "|" + status + "|" + body;
    }

    static Answer decode(String value) {
        String[] parts = value.split("\\|", 3);
        return new Answer(parts[0], Integer.parseInt(parts[1]), parts[2]);
    }
}
