package io.dupguard.idempotency;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;

/**
 * Codec for simple values: one tag byte, then the value. Types: {@code Void} (always null),
 * String, byte[], Boolean, Integer, Long, Double, BigDecimal, BigInteger, UUID; null for any type.
 */
final class BasicResultCodec implements ResultCodec {
    static final BasicResultCodec INSTANCE = new BasicResultCodec();

    private static final byte NULL = 0;
    /** A String with malformed UTF-16, stored as its code units so that it replays exactly. */
    private static final byte UTF16_STRING = 10;

    private static final Map<Class<?>, Byte> TAGS = Map.of(
            String.class, (byte) 1,
            byte[].class, (byte) 2,
            Boolean.class, (byte) 3,
            Integer.class, (byte) 4,
            Long.class, (byte) 5,
            Double.class, (byte) 6,
            BigDecimal.class, (byte) 7,
            BigInteger.class, (byte) 8,
            UUID.class, (byte) 9,
            Void.class, NULL);

    private BasicResultCodec() {}

    @Override
    public void checkSupported(Class<?> type) {
        if (!TAGS.containsKey(box(type))) {
            throw new IllegalArgumentException(
                    "the basic ResultCodec cannot store results of type "
                            + type.getName()
                            + "; configure a ResultCodec for it (implement io.dupguard.idempotency.ResultCodec, e.g. on Jackson)");
        }
    }

    @Override
    public byte[] encode(Object value) {
        if (value == null) {
            return new byte[] {NULL};
        }
        Class<?> type = value.getClass();
        checkSupported(type);
        byte tag = TAGS.get(type);
        byte[] body;
        if (value instanceof byte[] bytes) {
            body = bytes;
        } else if (value instanceof Boolean b) {
            body = new byte[] {(byte) (b ? 1 : 0)};
        } else if (value instanceof Integer i) {
            body = ByteBuffer.allocate(4).putInt(i).array();
        } else if (value instanceof Long l) {
            body = ByteBuffer.allocate(8).putLong(l).array();
        } else if (value instanceof Double d) {
            body = ByteBuffer.allocate(8).putDouble(d).array();
        } else if (value instanceof BigInteger bi) {
            body = bi.toByteArray();
        } else if (value instanceof BigDecimal bd) {
            body = bd.toString().getBytes(StandardCharsets.UTF_8);
        } else if (value instanceof String text && !Fingerprint.wellFormed(text)) {
            // UTF-8 would turn a lone surrogate into '?': store the UTF-16 code units instead.
            tag = UTF16_STRING;
            body = new byte[2 * text.length()];
            for (int i = 0; i < text.length(); i++) {
                body[2 * i] = (byte) (text.charAt(i) >>> 8);
                body[2 * i + 1] = (byte) text.charAt(i);
            }
        } else {
            body = value.toString().getBytes(StandardCharsets.UTF_8);
        }
        byte[] out = new byte[body.length + 1];
        out[0] = tag;
        System.arraycopy(body, 0, out, 1, body.length);
        return out;
    }

    @Override
    public <T> T decode(byte[] bytes, Class<T> type) {
        if (bytes == null || bytes.length == 0) {
            throw new IllegalArgumentException("no stored result to decode");
        }
        if (bytes[0] == NULL) {
            return null;
        }
        Class<?> boxed = box(type);
        if (bytes[0] == UTF16_STRING && boxed == String.class) {
            char[] chars = new char[(bytes.length - 1) / 2];
            for (int i = 0; i < chars.length; i++) {
                chars[i] = (char) (((bytes[1 + 2 * i] & 0xFF) << 8) | (bytes[2 + 2 * i] & 0xFF));
            }
            @SuppressWarnings("unchecked")
            T text = (T) new String(chars);
            return text;
        }
        Byte expected = TAGS.get(boxed);
        if (expected == null || expected != bytes[0]) {
            throw new IllegalArgumentException(
                    "stored result has tag " + bytes[0] + ", cannot decode as " + type.getName());
        }
        byte[] body = Arrays.copyOfRange(bytes, 1, bytes.length);
        Object value;
        switch (bytes[0]) {
            case 1 -> value = new String(body, StandardCharsets.UTF_8);
            case 2 -> value = body;
            case 3 -> value = body[0] == 1;
            case 4 -> value = ByteBuffer.wrap(body).getInt();
            case 5 -> value = ByteBuffer.wrap(body).getLong();
            case 6 -> value = ByteBuffer.wrap(body).getDouble();
            case 7 -> value = new BigDecimal(new String(body, StandardCharsets.UTF_8));
            case 8 -> value = new BigInteger(body);
            case 9 -> value = UUID.fromString(new String(body, StandardCharsets.UTF_8));
            default -> throw new IllegalArgumentException("unknown tag " + bytes[0]);
        }
        @SuppressWarnings("unchecked")
        T result = (T) value;
        return result;
    }

    private static Class<?> box(Class<?> type) {
        if (!type.isPrimitive()) {
            return type;
        }
        if (type == int.class) {
            return Integer.class;
        } else if (type == long.class) {
            return Long.class;
        } else if (type == boolean.class) {
            return Boolean.class;
        } else if (type == double.class) {
            return Double.class;
        } else if (type == void.class) {
            return Void.class;
        }
        return type;
    }
}
