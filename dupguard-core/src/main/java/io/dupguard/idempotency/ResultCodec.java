package io.dupguard.idempotency;

/**
 * Turns a work result into bytes for the store and back for replays. The default, {@link
 * #basic()}, handles strings, byte arrays, numbers, booleans, UUIDs and null; {@code
 * io.dupguard.jackson.JacksonResultCodec} (module dupguard-jackson) handles arbitrary objects.
 * Implementations are thread-safe.
 */
public interface ResultCodec {

    /**
     * Encodes a result (possibly null).
     *
     * @param value the result; may be null
     * @return the encoded bytes; never null
     */
    byte[] encode(Object value);

    /**
     * Decodes bytes written by {@link #encode} into {@code type}.
     *
     * @param <T> the result type
     * @param bytes bytes written by {@link #encode}; not null
     * @param type the result type; not null
     * @return the decoded result; may be null
     */
    <T> T decode(byte[] bytes, Class<T> type);

    /**
     * Fails fast, before any work runs, when this codec cannot round-trip {@code type}: a result
     * that cannot be stored after the work took effect would leave the key claimed with no
     * replayable answer.
     *
     * @param type the result type the work declares; not null
     * @throws IllegalArgumentException naming the type if unsupported
     */
    default void checkSupported(Class<?> type) {}

    /**
     * The built-in codec for simple values.
     *
     * @return the shared codec for strings, byte arrays, booleans, integers, longs, doubles, {@code
     *     BigDecimal}, {@code BigInteger}, UUIDs and null
     */
    static ResultCodec basic() {
        return BasicResultCodec.INSTANCE;
    }
}
