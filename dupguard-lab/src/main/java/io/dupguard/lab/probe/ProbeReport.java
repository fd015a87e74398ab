package io.dupguard.lab.probe;

import java.util.List;

/**
 * The verdicts of one probe run.
 *
 * @param target {@code POST http://127.0.0.1:8080/payments}
 * @param effectsQueries the queries that counted the effects
 * @param scenarios each scenario's verdict, in the order they ran
 * @param wallSeconds the whole run, settling included
 * @param ok whether every key of every judged scenario took effect exactly once
 */
public record ProbeReport(
        String target, List<String> effectsQueries, List<ScenarioVerdict> scenarios, double wallSeconds, boolean ok) {
    public ProbeReport {
        effectsQueries = List.copyOf(effectsQueries);
        scenarios = List.copyOf(scenarios);
    }

    /** The verdict of the scenario named {@code name}. */
    public ScenarioVerdict scenario(String name) {
        return scenarios.stream()
                .filter(s -> s.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no scenario " + name + " in this run; ran: "
                        + scenarios.stream().map(ScenarioVerdict::name).toList()));
    }

    /** {@code concurrent-duplicates k-3f2a… (32 effects)} for every key with a duplicate or lost effect. */
    public List<String> brokenKeys() {
        return scenarios.stream()
                .flatMap(s -> s.brokenKeys().stream()
                        .map(k -> s.name() + " " + k.key() + " (" + k.verdict() + ", effects " + k.effectsText() + ")"))
                .toList();
    }
}
