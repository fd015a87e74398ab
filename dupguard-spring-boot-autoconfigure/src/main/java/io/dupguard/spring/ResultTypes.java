package io.dupguard.spring;

import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.jackson.JacksonResultCodec;
import java.lang.reflect.Type;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

/** Binds a generic result type to the configured codec, since the core API names types by Class. */
final class ResultTypes {
    private ResultTypes() {}

    /** {@code base} with a Jackson codec bound to {@code type}, or {@code base} for a plain class. */
    static IdempotencyConfig bind(IdempotencyConfig base, Type type) {
        if (!(type instanceof Class<?>) && base.codec() instanceof JacksonResultCodec jackson) {
            return IdempotencyConfig.from(base).codec(jackson.forType(type)).build();
        }
        return base;
    }

    /** The raw class of {@code type}, primitives boxed and void as {@link Void}. */
    @SuppressWarnings("unchecked")
    static <T> Class<T> raw(Type type) {
        Class<?> raw = ResolvableType.forType(type).resolve(Object.class);
        if (raw == void.class) {
            return (Class<T>) Void.class;
        }
        return (Class<T>) ClassUtils.resolvePrimitiveIfNecessary(raw);
    }
}
