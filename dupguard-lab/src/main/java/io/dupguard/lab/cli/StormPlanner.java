package io.dupguard.lab.cli;

import io.dupguard.lab.storm.Need;
import io.dupguard.lab.storm.Storm;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.Workload;
import io.dupguard.lab.storm.Workloads;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** Turns {@code --workload} and {@code --strategy} into what to run, rejecting unknown names. */
final class StormPlanner {
    /** {@code --workload all}: every workload, also those a default run leaves out. */
    static final String ALL = "all";

    private StormPlanner() {}

    /**
     * Without {@code --workload}, the default workloads (every workload when {@code --strategy} is
     * given); {@code all} selects every one. Without {@code --strategy}, every strategy whose servers
     * are given; with it, the named ones in each selected workload that has them. A workload that
     * has none of them is skipped.
     *
     * @throws ParameterException for an unknown name or a strategy whose server is not given
     */
    static List<Storm.Plan> plan(
            CommandLine cmd, List<String> workloadNames, List<String> strategyNames, Predicate<Need> available) {
        List<Workload> selected = new ArrayList<>();
        for (String name : new LinkedHashSet<>(workloadNames)) {
            if (name.equals(ALL)) {
                selected.addAll(Workloads.all());
                continue;
            }
            selected.add(Workloads.named(name)
                    .orElseThrow(() -> new ParameterException(
                            cmd, "unknown workload '" + name + "'; known: " + names(Workloads.all()) + ", or " + ALL)));
        }
        if (selected.isEmpty()) {
            Workloads.all().stream()
                    .filter(w -> !strategyNames.isEmpty() || w.inDefaultRun())
                    .forEach(selected::add);
        }
        selected = new ArrayList<>(new LinkedHashSet<>(selected));
        Set<String> wanted = new LinkedHashSet<>(strategyNames);
        for (String name : wanted) {
            if (selected.stream().flatMap(w -> w.strategies().stream()).noneMatch(s -> s.name()
                    .equals(name))) {
                throw new ParameterException(
                        cmd,
                        "unknown strategy '" + name + "' for workload " + names(selected) + "; known: "
                                + selected.stream()
                                        .flatMap(w -> w.strategies().stream())
                                        .map(Strategy::name)
                                        .distinct()
                                        .collect(Collectors.joining(", ")));
            }
        }
        List<Storm.Plan> plans = new ArrayList<>();
        for (Workload w : selected) {
            List<Strategy> run = new ArrayList<>();
            for (Strategy s : w.strategies()) {
                boolean named = wanted.contains(s.name());
                Optional<Need> missing = s.needs().stream()
                        .filter(n -> !available.test(n))
                        .sorted()
                        .findFirst();
                boolean runnable = missing.isEmpty();
                if (named && !runnable) {
                    throw new ParameterException(
                            cmd,
                            "strategy '" + s.name() + "' needs " + missing.get().option() + " to be given");
                }
                if ((wanted.isEmpty() || named) && runnable) {
                    run.add(s);
                }
            }
            if (!run.isEmpty()) {
                plans.add(new Storm.Plan(w, run));
            }
        }
        return plans;
    }

    static void list(PrintWriter out) {
        for (Workload w : Workloads.all()) {
            out.println(w.name() + " - " + w.summary()
                    + (w.inDefaultRun() ? "" : " [only with --workload all or by name]"));
            for (Strategy s : w.strategies()) {
                String needs = s.needs().isEmpty()
                        ? ""
                        : " [needs " + s.needs().stream().map(Need::option).collect(Collectors.joining(", ")) + "]";
                out.printf("  %-22s %-9s %s%s%n", s.name(), s.family().id(), s.summary(), needs);
            }
            out.println();
        }
    }

    private static String names(List<Workload> workloads) {
        return workloads.stream().map(Workload::name).collect(Collectors.joining(", "));
    }
}
