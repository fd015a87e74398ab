package io.dupguard.lab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.lab.storm.Need;
import io.dupguard.lab.storm.Storm;
import io.dupguard.lab.storm.Strategy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Which workloads and strategies a command line selects. */
class StormPlannerTest {
    private static final CommandLine CMD = new CommandLine(new StormCommand(false));
    private static final Predicate<Need> NO_SERVERS = n -> false;

    private static Map<String, List<String>> plan(
            List<String> workloads, List<String> strategies, Predicate<Need> have) {
        return StormPlanner.plan(CMD, workloads, strategies, have).stream()
                .collect(Collectors.toMap(
                        p -> p.workload().name(),
                        p -> p.strategies().stream().map(Strategy::name).toList(),
                        (a, b) -> a,
                        LinkedHashMap::new));
    }

    @Test
    void aDefaultRunLeavesOutTheLockBackends() {
        assertThat(plan(List.of(), List.of(), NO_SERVERS).keySet())
                .containsExactly("account-binding", "payment", "balance-init", "order-payment", "form-submit");
    }

    @Test
    void allRunsEveryWorkloadWithTheStrategiesTheServersAllow() {
        Map<String, List<String>> plan = plan(List.of("all"), List.of(), NO_SERVERS);
        assertThat(plan.keySet()).endsWith("lock-backends");
        assertThat(plan.get("lock-backends"))
                .containsExactly("memory-unfenced", "memory-fenced", "jdbc-unfenced", "jdbc-fenced");
    }

    @Test
    void eachServerAddsItsLockBackends() {
        Map<String, List<String>> plan =
                plan(List.of("lock-backends"), List.of(), n -> n == Need.REDLOCK || n == Need.ZOOKEEPER);
        assertThat(plan.get("lock-backends"))
                .contains("redlock-unfenced", "redlock-fenced", "zookeeper-unfenced", "zookeeper-fenced")
                .doesNotContain("redis-fenced");
    }

    @Test
    void aNamedStrategyIsFoundInAWorkloadOutsideTheDefaultRun() {
        List<Storm.Plan> plans = StormPlanner.plan(CMD, List.of(), List.of("memory-fenced"), NO_SERVERS);
        assertThat(plans).singleElement().satisfies(p -> {
            assertThat(p.workload().name()).isEqualTo("lock-backends");
            assertThat(p.strategies()).extracting(Strategy::name).containsExactly("memory-fenced");
        });
    }
}
