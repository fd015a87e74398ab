package io.dupguard.jackson;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotentWork;
import io.dupguard.idempotency.Outcome;
import io.dupguard.idempotency.ResultCodec;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.time.temporal.Temporal;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * A {@link ResultCodec} on Jackson 3: results of any type Jackson can write and read back — records,
 * beans, collections, maps, {@link Optional}, {@code java.time} values (built into Jackson 3's
 * databind), enums and the simple values of {@link ResultCodec#basic()}. A result is stored as its
 * JSON text (UTF-8), so a replay returns an equal object graph, decoded into the type the caller
 * names.
 *
 * <pre>{@code
 * JacksonResultCodec codec = JacksonResultCodec.create();          // or of(applicationMapper)
 * Idempotency idempotency = Idempotency.of(store, IdempotencyConfig.custom().codec(codec).build());
 * Outcome<Receipt> r = idempotency.execute(key, fingerprint, Receipt.class, () -> charge(order));
 * // generic results keep their element types:
 * Outcome<List<Receipt>> all = codec.execute(idempotency, key, fingerprint,
 *         new TypeReference<List<Receipt>>() {}, () -> chargeAll(orders));
 * }</pre>
 *
 * <p>What a replay cannot restore: the runtime class of a value declared as a supertype (a replay
 * into {@code Payment} of a stored {@code CardPayment} yields a {@code Payment}) unless the type
 * carries {@link JsonTypeInfo}; object identity and cycles; fields the mapper does not write. For
 * that reason {@link #checkSupported} refuses, before any work runs, an abstract class or interface
 * outside {@code java.*} that has no {@link JsonTypeInfo}: its replays could not be decoded.
 *
 * <p>Thread-safe (an {@link ObjectMapper} is, once configured). Nulls: {@code null} results are
 * stored and replayed as null; an empty {@code Optional} replays as {@code Optional.empty()}.
 */
public final class JacksonResultCodec implements ResultCodec {
    private final ObjectMapper mapper;
    private final JavaType boundType;

    private JacksonResultCodec(ObjectMapper mapper, JavaType boundType) {
        this.mapper = mapper;
        this.boundType = boundType;
    }

    /**
     * A codec on a default {@link JsonMapper} (ISO-8601 dates, records, Optional).
     *
     * @return a thread-safe codec
     */
    public static JacksonResultCodec create() {
        return new JacksonResultCodec(JsonMapper.builder().build(), null);
    }

    /**
     * A codec on the application's mapper, so results are written with its modules and settings.
     *
     * @param mapper the mapper, configured by the application; not null, not changed afterwards
     * @return a thread-safe codec
     * @throws NullPointerException if {@code mapper} is null
     */
    public static JacksonResultCodec of(ObjectMapper mapper) {
        return new JacksonResultCodec(Objects.requireNonNull(mapper, "mapper"), null);
    }

    /**
     * The mapper this codec writes and reads with.
     *
     * @return the mapper; never null
     */
    public ObjectMapper mapper() {
        return mapper;
    }

    /**
     * A codec that decodes into the full generic {@code type} (say {@code List<Receipt>}) whenever
     * the caller asks for its raw class ({@code List.class}): {@link Idempotency#execute} names the
     * result type by a {@code Class}, which cannot carry type arguments.
     *
     * @param type the generic result type; not null
     * @return a new codec bound to {@code type}, sharing this codec's mapper
     * @throws NullPointerException if {@code type} is null
     */
    public JacksonResultCodec forType(Type type) {
        Objects.requireNonNull(type, "type");
        return new JacksonResultCodec(mapper, mapper.getTypeFactory().constructType(type));
    }

    /**
     * {@link #forType(Type)} for a {@link TypeReference}.
     *
     * @param type the generic result type; not null
     * @return a new codec bound to {@code type}, sharing this codec's mapper
     */
    public JacksonResultCodec forType(TypeReference<?> type) {
        Objects.requireNonNull(type, "type");
        return forType(type.getType());
    }

    /**
     * Runs {@link Idempotency#execute} with a generic result type: the work runs once per key, and a
     * replay is decoded into the full {@code type}. Uses {@code idempotency}'s store and settings with
     * this codec bound to {@code type} (a lightweight executor per call; a local result cache, if
     * configured, is not shared with {@code idempotency}).
     *
     * @param <T> the result type
     * @param <E> the checked exception {@code work} may throw
     * @param idempotency the executor whose store and settings are used; not null
     * @param key the operation's key; not null
     * @param fingerprint the request's fingerprint, or {@link Fingerprint#none()}; not null
     * @param type the generic result type; not null
     * @param work the operation; not null
     * @return the result and whether this call ran the work or replayed it; never null
     * @throws io.dupguard.idempotency.PayloadMismatchException and the rest, as {@link
     *     Idempotency#execute} documents
     * @throws E whatever the work throws
     */
    @SuppressWarnings("unchecked")
    public <T, E extends Exception> Outcome<T> execute(
            Idempotency idempotency,
            IdempotencyKey key,
            Fingerprint fingerprint,
            TypeReference<T> type,
            IdempotentWork<T, E> work)
            throws E {
        Objects.requireNonNull(idempotency, "idempotency");
        JacksonResultCodec bound = forType(type);
        Idempotency typed = Idempotency.of(
                idempotency.store(),
                IdempotencyConfig.from(idempotency.config()).codec(bound).build());
        Class<T> raw = (Class<T>) bound.boundType.getRawClass();
        return typed.execute(key, fingerprint, raw, work);
    }

    @Override
    public byte[] encode(Object value) {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(
                    "cannot store a result of type " + value.getClass().getName() + " as JSON: "
                            + e.getOriginalMessage(),
                    e);
        }
    }

    @Override
    public <T> T decode(byte[] bytes, Class<T> type) {
        Objects.requireNonNull(bytes, "bytes");
        Objects.requireNonNull(type, "type");
        JavaType target = target(type);
        try {
            T value = mapper.readValue(bytes, target);
            if (value == null && type == Optional.class) {
                @SuppressWarnings("unchecked")
                T empty = (T) Optional.empty();
                return empty;
            }
            return value;
        } catch (JacksonException e) {
            throw new IllegalArgumentException(
                    "cannot read a stored result as " + target + ": " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public void checkSupported(Class<?> type) {
        Objects.requireNonNull(type, "type");
        Class<?> raw = target(type).getRawClass();
        boolean opaque = (raw.isInterface() || Modifier.isAbstract(raw.getModifiers()))
                && !raw.isPrimitive()
                && !raw.isArray()
                && !raw.getName().startsWith("java.")
                && !Collection.class.isAssignableFrom(raw)
                && !Map.class.isAssignableFrom(raw)
                && !Temporal.class.isAssignableFrom(raw)
                && !raw.isAnnotationPresent(JsonTypeInfo.class);
        if (opaque) {
            throw new IllegalArgumentException("the Jackson ResultCodec cannot replay results declared as "
                    + raw.getName()
                    + ": it is abstract and has no @JsonTypeInfo, so a stored result could not be read back;"
                    + " declare the concrete type or annotate the type with @JsonTypeInfo");
        }
    }

    private JavaType target(Class<?> requested) {
        if (boundType != null && boundType.getRawClass() == requested) {
            return boundType;
        }
        return mapper.getTypeFactory().constructType(requested);
    }

    @Override
    public String toString() {
        return "JacksonResultCodec" + (boundType == null ? "" : "[" + boundType + "]");
    }
}
