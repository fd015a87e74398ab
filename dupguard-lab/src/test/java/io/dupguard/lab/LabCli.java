package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.lab.cli.DupguardCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Runs the command line in this JVM and captures what it prints. */
public final class LabCli {
    public record Result(int status, String out, String err, Duration took) {}

    private LabCli() {}

    public static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        long start = System.nanoTime();
        int status = DupguardCli.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                false);
        return new Result(
                status,
                out.toString(StandardCharsets.UTF_8),
                err.toString(StandardCharsets.UTF_8),
                Duration.ofNanos(System.nanoTime() - start));
    }

    /**
     * {@code storm args…} on the PostgreSQL and Redis of {@link StormPostgresRedisIT}, with its
     * report written to {@code json}; fails the test, showing everything the storm printed, unless
     * it exits 0.
     */
    public static Result stormOnPostgresRedis(Path json, String... args) {
        List<String> all = new ArrayList<>(List.of("storm"));
        all.addAll(List.of(args));
        all.addAll(List.of(
                "--jdbc-url",
                StormPostgresRedisIT.PG,
                "--redis-url",
                StormPostgresRedisIT.REDIS,
                "--json",
                json.toString()));
        Result r = run(all.toArray(String[]::new));
        assertThat(r.status()).as("stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
        return r;
    }
}
