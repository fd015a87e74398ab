package io.dupguard.spring.web;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A response as stored for replay: status, selected headers and body; or, when the body was larger
 * than the limit, only the status and size, so that a replay can say so instead of sending a
 * truncated body.
 */
record StoredResponse(int status, Map<String, List<String>> headers, byte[] body, long tooLargeSize) {
    private static final byte FULL = 1;
    private static final byte TOO_LARGE = 2;

    static StoredResponse full(int status, Map<String, List<String>> headers, byte[] body) {
        return new StoredResponse(status, headers, body, -1);
    }

    static StoredResponse tooLarge(int status, long size) {
        return new StoredResponse(status, Map.of(), new byte[0], size);
    }

    boolean replayable() {
        return tooLargeSize < 0;
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(body.length + 128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            if (!replayable()) {
                out.writeByte(TOO_LARGE);
                out.writeInt(status);
                out.writeLong(tooLargeSize);
                return bytes.toByteArray();
            }
            out.writeByte(FULL);
            out.writeInt(status);
            out.writeInt(headers.size());
            for (Map.Entry<String, List<String>> h : headers.entrySet()) {
                out.writeUTF(h.getKey());
                out.writeInt(h.getValue().size());
                for (String v : h.getValue()) {
                    out.writeUTF(v);
                }
            }
            out.writeInt(body.length);
            out.write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static StoredResponse decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            byte kind = in.readByte();
            int status = in.readInt();
            if (kind == TOO_LARGE) {
                return tooLarge(status, in.readLong());
            }
            if (kind != FULL) {
                throw new IllegalArgumentException("not a stored HTTP response (kind " + kind + ")");
            }
            int n = in.readInt();
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String name = in.readUTF();
                int m = in.readInt();
                List<String> values = new ArrayList<>(m);
                for (int j = 0; j < m; j++) {
                    values.add(in.readUTF());
                }
                headers.put(name, values);
            }
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            return full(status, headers, body);
        } catch (IOException e) {
            throw new IllegalArgumentException("not a stored HTTP response", e);
        }
    }
}
