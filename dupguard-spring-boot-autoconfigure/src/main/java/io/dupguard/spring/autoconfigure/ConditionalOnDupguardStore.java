package io.dupguard.spring.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Conditional;

/**
 * Matches when {@code dupguard.store} (or its default, see {@link DupguardProperties#getStore()}) is
 * one of {@link #value()}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Documented
@Conditional(OnDupguardStoreCondition.class)
public @interface ConditionalOnDupguardStore {
    /**
     * The backends for which the annotated configuration applies.
     *
     * @return the backends; at least one
     */
    DupguardProperties.StoreType[] value();
}
