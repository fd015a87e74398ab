package io.dupguard.lab.probe;

import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * One scenario of a message probe (RabbitMQ, Kafka): each key's publish outcomes, their latencies,
 * the notes; judged against the effects once every scenario has run. A message the broker
 * acknowledged is one the service was asked to process, so a key without effects is lost.
 */
final class MessageScenario {
    final String name;
    final String description;
    final long started = System.nanoTime();
    final Map<String, List<String>> keys = new LinkedHashMap<>();
    final Histogram histogram = new Histogram(3_600_000_000L, 3);
    final List<String> notes = new ArrayList<>();
    boolean judged = true;

    MessageScenario(String name, String description) {
        this.name = name;
        this.description = description;
    }

    void record(String key, String outcome, long micros) {
        keys.computeIfAbsent(key, k -> new ArrayList<>()).add(outcome);
        if (micros > 0) {
            histogram.recordValue(Math.min(micros, histogram.getHighestTrackableValue()));
        }
    }

    ScenarioVerdict verdict(Map<String, List<Long>> effects) {
        List<KeyResult> results = new ArrayList<>();
        Map<String, Long> outcomes = new TreeMap<>();
        List<String> findings = new ArrayList<>();
        for (Map.Entry<String, List<String>> e : keys.entrySet()) {
            List<Long> counts = effects.getOrDefault(e.getKey(), List.of());
            // A message the broker confirmed is one the service was asked to process: 0 effects is lost.
            KeyResult k = new KeyResult(
                    e.getKey(),
                    e.getValue(),
                    true,
                    counts,
                    judged ? KeyResult.judge(counts, true) : KeyResult.NOT_JUDGED);
            results.add(k);
            e.getValue().forEach(o -> outcomes.merge(o, 1L, Long::sum));
            if (k.broken()) {
                findings.add(k.key() + ": " + k.effectsText() + " effects (" + k.verdict() + "); "
                        + HttpProbe.summary(k.answers()));
            } else if (!judged) {
                notes.add(k.key() + ": " + HttpProbe.summary(k.answers()) + "; effects " + k.effectsText()
                        + (counts.stream().anyMatch(n -> n > 1) ? " (without an id each copy took effect)" : ""));
            }
        }
        return ScenarioVerdict.of(
                name,
                description,
                !judged ? ScenarioVerdict.INFO : findings.isEmpty() ? ScenarioVerdict.PASS : ScenarioVerdict.FAIL,
                results,
                histogram,
                outcomes,
                findings,
                notes);
    }

    /** Reports the scenario's end to {@code progress}; returns it. */
    MessageScenario done(Consumer<String> progress) {
        progress.accept(String.format(
                Locale.ROOT,
                "probe: %s done, %d keys, %d messages, %.1f s",
                name,
                keys.size(),
                histogram.getTotalCount(),
                (System.nanoTime() - started) / 1e9));
        return this;
    }

    /** Counts every scenario's keys over {@code jdbcUrl} (after {@code settle}) and judges them. */
    static List<ScenarioVerdict> count(
            String jdbcUrl,
            List<EffectsQuery> queries,
            List<MessageScenario> scenarios,
            Duration settle,
            Duration lostAfter) {
        Map<String, Boolean> keys = new LinkedHashMap<>();
        for (MessageScenario s : scenarios) {
            for (String key : s.keys.keySet()) {
                keys.put(key, s.judged);
            }
        }
        Map<String, List<Long>> effects =
                EffectsQuery.countAll(() -> DriverManager.getConnection(jdbcUrl), queries, keys, settle, lostAfter);
        return scenarios.stream().map(s -> s.verdict(effects)).toList();
    }
}
