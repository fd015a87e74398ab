package io.dupguard.spring.annotation;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/** Parses (once) and evaluates the SpEL of dupguard's annotations over a method call. */
final class MethodExpressions {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();
    private static final Map<String, Expression> CACHE = new ConcurrentHashMap<>();

    /** The root object: {@code args}, {@code method}, {@code target}. */
    public record Root(Method method, Object[] args, Object target) {}

    private MethodExpressions() {}

    /**
     * @throws IllegalArgumentException naming the method and attribute if the text does not parse
     */
    static Expression parse(Method method, String attribute, String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException(describe(method) + ": " + attribute + " must not be empty");
        }
        try {
            return CACHE.computeIfAbsent(text, PARSER::parseExpression);
        } catch (ParseException e) {
            throw new IllegalArgumentException(
                    describe(method) + ": " + attribute + " = \"" + text + "\" is not valid SpEL: " + e.getMessage(),
                    e);
        }
    }

    static Object evaluate(Expression expression, Method method, Object[] args, Object target) {
        MethodBasedEvaluationContext context =
                new MethodBasedEvaluationContext(new Root(method, args, target), method, args, NAMES);
        return expression.getValue(context);
    }

    static String describe(Method method) {
        return method.getDeclaringClass().getName() + "#" + method.getName();
    }
}
