package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The executable jar that {@code ./dupguard} runs: its main class, the bundled JDBC drivers
 * (registered through merged service files), the embedded ZooKeeper, and quiet logging.
 */
@Execution(ExecutionMode.CONCURRENT) // in the second lane: see SecondLane
@ResourceLock(SecondLane.LOCK)
class ShadedJarIT {
    private static final Path JAR = Path.of(System.getProperty("dupguard.lab.jar", "target/dupguard-lab.jar"));

    @TempDir
    Path dir;

    @Test
    void printsItsVersion() throws Exception {
        ExternalProcess.Run r = java("--version");
        assertThat(r.status()).isZero();
        assertThat(r.out()).startsWith("dupguard ").doesNotContain("unknown");
    }

    @Test
    void runsAShortStormQuietly() throws Exception {
        ExternalProcess.Run r = java(
                "storm",
                "--workload",
                "payment",
                "--strategy",
                "none,idempotency-jdbc",
                "--duration",
                "300ms",
                "--clients",
                "4");
        assertThat(r.status()).as("stderr: %s", r.err()).isZero();
        assertThat(r.out()).contains("idempotency-jdbc", "ok: every dupguard strategy");
        assertThat(r.err()).doesNotContain("SLF4J", "WARN", "Exception");
    }

    @Test
    void startsTheEmbeddedZooKeeperQuietly() throws Exception {
        ExternalProcess.Run r = java(
                "storm",
                "--workload",
                "lock-backends",
                "--strategy",
                "zookeeper-unfenced,zookeeper-fenced",
                "--zookeeper",
                "embedded",
                "--duration",
                "300ms",
                "--clients",
                "4");
        assertThat(r.status()).as("stderr: %s", r.err()).isZero();
        assertThat(r.out()).contains("+ ZooKeeper (embedded, 127.0.0.1:", "ok: every dupguard strategy");
        assertThat(r.err()).doesNotContain("SLF4J", "WARN", "Exception");
    }

    @Test
    void bundlesThePostgresqlDriver() throws Exception {
        ExternalProcess.Run r = java("storm", "--jdbc-url", "jdbc:postgresql://127.0.0.1:" + closedPort() + "/test");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).startsWith("dupguard: cannot connect to --jdbc-url jdbc:postgresql:");
    }

    @Test
    void bundlesTheMariadbDriver() throws Exception {
        ExternalProcess.Run r = java("storm", "--jdbc-url", "jdbc:mariadb://127.0.0.1:" + closedPort() + "/test");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).startsWith("dupguard: cannot connect to --jdbc-url jdbc:mariadb:");
    }

    private ExternalProcess.Run java(String... args) throws IOException, InterruptedException {
        assertThat(JAR).as("built by the package phase").exists();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-jar");
        command.add(JAR.toString());
        command.addAll(List.of(args));
        return ExternalProcess.run(dir, command, Map.of());
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
