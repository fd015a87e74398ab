package io.dupguard.lab.storm;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A workload's strategies by name, each with the factory that builds its implementation from the
 * workload's context. Adding a strategy is one class and one {@link #add} line.
 *
 * @param <C> what the workload hands every factory (tables, environment)
 * @param <H> the workload's strategy interface
 */
public final class StrategyCatalog<C, H> {

    /** Builds one strategy's implementation. */
    @FunctionalInterface
    public interface Factory<C, H> {
        H create(C context) throws Exception;
    }

    private final Map<String, Strategy> strategies = new LinkedHashMap<>();
    private final Map<String, Factory<C, H>> factories = new LinkedHashMap<>();

    public StrategyCatalog<C, H> add(Strategy strategy, Factory<C, H> factory) {
        if (strategies.putIfAbsent(strategy.name(), strategy) != null) {
            throw new IllegalArgumentException("duplicate strategy name " + strategy.name());
        }
        factories.put(strategy.name(), factory);
        return this;
    }

    public List<Strategy> strategies() {
        return new ArrayList<>(strategies.values());
    }

    public H create(Strategy strategy, C context) throws Exception {
        Factory<C, H> factory = factories.get(strategy.name());
        if (factory == null) {
            throw new IllegalArgumentException("unknown strategy " + strategy.name());
        }
        return factory.create(context);
    }
}
