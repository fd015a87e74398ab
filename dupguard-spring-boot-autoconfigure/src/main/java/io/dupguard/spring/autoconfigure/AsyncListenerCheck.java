package io.dupguard.spring.autoconfigure;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import org.aopalliance.aop.Advice;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ReflectionUtils;

/**
 * Refuses, at start-up, a listener method that returns its effect later ({@code CompletableFuture},
 * {@code Mono}, any {@link CompletionStage}, {@link Future} or Reactive Streams publisher) on a
 * container factory whose advice chain holds dupguard's listener dedup. The dedup records a key when
 * the listener method returns; an asynchronous listener returns before its effect ends, so a failure
 * of that effect would leave the key recorded and its redelivery would be skipped as a duplicate —
 * the message acknowledged without its effect. Such a listener must return when its effect is done
 * (return {@code void}, or join the future), or run on a factory without the dedup.
 */
final class AsyncListenerCheck implements BeanPostProcessor {
    private final BeanFactory beans;
    private final Class<? extends Annotation> listenerAnnotation;
    private final String defaultFactory;
    private final String property;
    private final Predicate<Object> dedupFactory;

    /**
     * @param beans where the container factories are looked up by name
     * @param listenerAnnotation {@code @KafkaListener} or {@code @RabbitListener}
     * @param defaultFactory the factory a listener without {@code containerFactory} uses
     * @param property the default-factory property, named in the error
     * @param dedupFactory whether a factory bean's advice chain holds the dedup
     */
    AsyncListenerCheck(
            BeanFactory beans,
            Class<? extends Annotation> listenerAnnotation,
            String defaultFactory,
            String property,
            Predicate<Object> dedupFactory) {
        this.beans = beans;
        this.listenerAnnotation = listenerAnnotation;
        this.defaultFactory = defaultFactory;
        this.property = property;
        this.dedupFactory = dedupFactory;
    }

    /** Whether {@code chain} holds an advice of {@code type}. */
    static boolean holds(Advice[] chain, Class<?> type) {
        return chain != null && Arrays.stream(chain).anyMatch(type::isInstance);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        if (type.getName().startsWith("org.springframework.")) {
            return bean;
        }
        ReflectionUtils.doWithMethods(type, method -> check(method, beanName), m -> !m.isBridge());
        return bean;
    }

    private void check(Method method, String beanName) {
        MergedAnnotation<? extends Annotation> listener =
                MergedAnnotations.from(method).get(listenerAnnotation);
        if (!listener.isPresent() || !returnsLater(method.getReturnType())) {
            return;
        }
        String factory = listener.getValue("containerFactory", String.class).orElse("");
        String name = factory.isEmpty() ? defaultFactory : factory;
        if (!beans.containsBean(name) || !dedupFactory.test(beans.getBean(name))) {
            return;
        }
        throw new IllegalStateException("dupguard: the listener " + beanName + "." + method.getName() + " returns "
                + method.getReturnType().getSimpleName() + " on the container factory '" + name
                + "', whose advice chain deduplicates its messages (" + property + "). The dedup records a key"
                + " when the listener method returns, before an asynchronous effect ends: a failure of that"
                + " effect would leave the key recorded, and the redelivery would be skipped as a duplicate."
                + " Return when the effect is done (void, or join the future), or use a container factory"
                + " without the dedup for this listener.");
    }

    private static boolean returnsLater(Class<?> returns) {
        return CompletionStage.class.isAssignableFrom(returns)
                || Future.class.isAssignableFrom(returns)
                || returns.getName().startsWith("reactor.core.publisher.")
                || implementsByName(returns, "org.reactivestreams.Publisher");
    }

    private static boolean implementsByName(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(name)) {
                return true;
            }
            for (Class<?> i : c.getInterfaces()) {
                if (implementsByName(i, name)) {
                    return true;
                }
            }
        }
        return false;
    }
}
