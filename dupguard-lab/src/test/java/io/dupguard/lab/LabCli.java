package io.dupguard.lab;

import io.dupguard.lab.cli.DupguardCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

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
}
