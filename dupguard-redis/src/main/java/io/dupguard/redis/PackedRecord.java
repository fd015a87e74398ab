package io.dupguard.redis;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyRecord;
import io.dupguard.idempotency.RecordStatus;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One idempotency record as one Redis string: {@code <state><fingerprint hex>\n<owner>\n[body]},
 * where state is {@code P}, {@code C} or {@code F}, and a finished record's body is {@code -} (null
 * payload) or {@code +} followed by the payload's bytes. Neither the fingerprint (hex) nor the owner
 * (no control characters) can contain a newline, so the first two newlines delimit them and the
 * payload may hold any bytes.
 */
final class PackedRecord {
    private PackedRecord() {}

    /** The in-progress record a claim writes. */
    static byte[] inProgress(Fingerprint fingerprint, String owner) {
        return ("P" + fingerprint.hex() + "\n" + owner + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The record stored under {@code key}.
     *
     * @throws IllegalArgumentException with the reason, if the value is not a record
     */
    static IdempotencyRecord unpack(IdempotencyKey key, byte[] v) {
        if (v.length == 0) {
            throw new IllegalArgumentException("empty value");
        }
        RecordStatus status =
                switch (v[0]) {
                    case 'P' -> RecordStatus.IN_PROGRESS;
                    case 'C' -> RecordStatus.COMPLETED;
                    case 'F' -> RecordStatus.FAILED;
                    default -> throw new IllegalArgumentException("unknown state '" + (char) (v[0] & 0xff) + "'");
                };
        int nl1 = indexOf(v, 1);
        int nl2 = nl1 < 0 ? -1 : indexOf(v, nl1 + 1);
        if (nl2 < 0) {
            throw new IllegalArgumentException("no fingerprint and owner fields");
        }
        Fingerprint fingerprint = Fingerprint.ofHex(new String(v, 1, nl1 - 1, StandardCharsets.US_ASCII));
        if (status == RecordStatus.IN_PROGRESS) {
            String owner = new String(v, nl1 + 1, nl2 - nl1 - 1, StandardCharsets.UTF_8);
            return new IdempotencyRecord(key, status, fingerprint, owner, null);
        }
        int body = nl2 + 1;
        byte[] payload;
        if (body < v.length && v[body] == '-' && body + 1 == v.length) {
            payload = null;
        } else if (body < v.length && v[body] == '+') {
            payload = Arrays.copyOfRange(v, body + 1, v.length);
        } else {
            throw new IllegalArgumentException("finished record without a payload marker");
        }
        return new IdempotencyRecord(key, status, fingerprint, null, payload);
    }

    private static int indexOf(byte[] v, int from) {
        for (int i = from; i < v.length; i++) {
            if (v[i] == '\n') {
                return i;
            }
        }
        return -1;
    }
}
