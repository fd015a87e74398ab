package io.dupguard.console;

import io.dupguard.idempotency.ResultCodec;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;

/** How stored bytes are shown: UTF-8 text if they are printable text, else hex; results decoded when the codec can. */
final class Display {
    private Display() {}

    /** {@code text} (or null), {@code hex} (if not text), {@code bytes}, {@code truncated}. */
    static Map<String, Object> bytes(byte[] b, int size) {
        if (b == null) {
            return null;
        }
        String text = text(b);
        return Json.map(
                "text",
                text,
                "hex",
                text == null ? HexFormat.of().formatHex(b) : null,
                "bytes",
                size,
                "truncated",
                size > b.length);
    }

    /** The bytes as text if they are valid UTF-8 without control characters other than whitespace. */
    static String text(byte[] b) {
        try {
            String s = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b))
                    .toString();
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
                    return null;
                }
            }
            return s;
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** A stored result decoded by dupguard's basic codec, or null if it is not in its format. */
    static String decoded(byte[] b, int size) {
        if (b == null || size > b.length) {
            return null;
        }
        try {
            Object v = ResultCodec.basic().decode(b, Object.class);
            return v instanceof byte[] ? null : String.valueOf(v);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
