package io.dupguard.spring.metrics;

/**
 * A starter bean that counts calls into {@link DupguardMeters} and forwards them to the store it
 * wraps. The starter wraps only its own token and throttle beans; code that needs the store's own
 * class (a {@code JdbcSubmissionTokens} for its purge, say) calls {@link #unwrap}.
 */
public interface MeteredBean {
    /**
     * The wrapped store.
     *
     * @return the wrapped store; never null
     */
    Object target();

    /**
     * {@code bean}, or the store it wraps, if that is a {@code type}; otherwise null.
     *
     * @param <T> the wanted type
     * @param bean a bean, metered or not; may be null
     * @param type the wanted type; not null
     * @return the bean or the store it wraps as a {@code type}, or null
     */
    static <T> T unwrap(Object bean, Class<T> type) {
        Object b = bean instanceof MeteredBean m ? m.target() : bean;
        return type.isInstance(b) ? type.cast(b) : null;
    }
}
