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
    DupguardProperties.StoreType[] value();
}
