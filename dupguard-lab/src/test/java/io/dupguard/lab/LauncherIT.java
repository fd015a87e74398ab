package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The {@code ./dupguard} launcher, run in a copy of the repository's layout whose {@code mvnw} is a
 * stand-in: it prints Maven's "Building" lines a module at a time and "builds" the jar by copying
 * the real one (a real build inside the build would take a minute). What is tested is the
 * launcher's part: that it says it is building and how far it got, keeps Maven's output in a log,
 * shows its end when the build fails, and runs the jar it built.
 */
@Execution(ExecutionMode.CONCURRENT) // in the second lane: see SecondLane
@ResourceLock(SecondLane.LOCK)
class LauncherIT {
    private static final Path LAUNCHER =
            Path.of("").toAbsolutePath().getParent().resolve("dupguard");
    private static final Path JAR = Path.of(System.getProperty("dupguard.lab.jar", "target/dupguard-lab.jar"));

    @TempDir
    Path root;

    @Test
    void firstRunSaysItIsBuildingShowsEachModuleThenRunsTheJar() throws Exception {
        layout(String.join(
                "\n",
                "#!/usr/bin/env bash",
                "echo '[INFO] Scanning for projects...'",
                "for m in 'dupguard-core 0.1.0-SNAPSHOT  [2/4]' 'dupguard-jdbc 0.1.0-SNAPSHOT  [3/4]'"
                        + " 'dupguard-lab 0.1.0-SNAPSHOT  [4/4]'; do",
                "  echo \"[INFO] Building $m\"; sleep 1.5", // the launcher looks every 0.25 s; a loaded machine is
                // slower
                "done",
                "mkdir -p dupguard-lab/target && cp \"$LAB_JAR\" dupguard-lab/target/dupguard-lab.jar",
                "echo '[INFO] BUILD SUCCESS'"));

        ExternalProcess.Run first = launch("--version");

        assertThat(first.status()).as("stderr: %s", first.err()).isZero();
        assertThat(first.out()).startsWith("dupguard ");
        assertThat(first.err())
                .startsWith("dupguard: building the lab jar (first run, or sources changed; about ")
                .contains("  dupguard-core [2/4], ", "  dupguard-jdbc [3/4], ", "  dupguard-lab [4/4], ")
                .containsPattern("dupguard: built in [0-9]+ s\n");
        assertThat(root.resolve("dupguard-lab/target/dupguard-build.log"))
                .content()
                .contains("BUILD SUCCESS");

        ExternalProcess.Run second = launch("--version");
        assertThat(second.status()).isZero();
        assertThat(second.err()).as("the jar is up to date: no build").isEmpty();
    }

    @Test
    void failedBuildShowsTheEndOfMavensOutputAndExitsWithThree() throws Exception {
        layout(String.join(
                "\n",
                "#!/usr/bin/env bash",
                "echo '[INFO] Building dupguard-core 0.1.0-SNAPSHOT  [2/4]'",
                "echo '[ERROR] COMPILATION ERROR : Lease.java:[12,5] cannot find symbol'",
                "echo '[INFO] BUILD FAILURE'",
                "exit 1"));

        ExternalProcess.Run r = launch("storm");

        assertThat(r.status()).isEqualTo(3);
        assertThat(r.out()).isEmpty();
        assertThat(r.err())
                .contains("dupguard: build failed after ")
                .contains(root.resolve("dupguard-lab/target/dupguard-build.log").toString())
                .contains("[ERROR] COMPILATION ERROR : Lease.java:[12,5] cannot find symbol", "BUILD FAILURE");
    }

    /** The launcher, a stand-in mvnw, and sources older than any jar, as in a fresh clone. */
    private void layout(String fakeMaven) throws IOException {
        Files.copy(LAUNCHER, root.resolve("dupguard"));
        Path mvnw = Files.writeString(root.resolve("mvnw"), fakeMaven + "\n");
        assertThat(mvnw.toFile().setExecutable(true)).isTrue();
        Path src = Files.createDirectories(root.resolve("dupguard-lab/src/main/java"));
        Files.writeString(root.resolve("pom.xml"), "<project/>\n");
        Files.writeString(root.resolve("dupguard-lab/pom.xml"), "<project/>\n");
        FileTime past = FileTime.from(Instant.now().minusSeconds(3600));
        for (Path p : new Path[] {root.resolve("pom.xml"), root.resolve("dupguard-lab/pom.xml"), src}) {
            Files.setLastModifiedTime(p, past);
        }
    }

    private ExternalProcess.Run launch(String... args) throws IOException, InterruptedException {
        assertThat(JAR).as("built by the package phase").exists();
        List<String> command =
                new ArrayList<>(List.of("bash", root.resolve("dupguard").toString()));
        command.addAll(List.of(args));
        return ExternalProcess.run(
                root,
                command,
                Map.of(
                        "JAVA_HOME",
                        System.getProperty("java.home"),
                        "LAB_JAR",
                        JAR.toAbsolutePath().toString()));
    }
}
