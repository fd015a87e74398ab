package io.dupguard.apicheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application module on the module path, next to dupguard-core, dupguard-jdbc, slf4j and H2: it
 * compiles and runs against the exported API (an in-memory lock, a JDBC idempotency store creating
 * its table from the DDL inside the jdbc module), and cannot compile against {@code
 * io.dupguard.internal}.
 */
class ModulePathTest {
    private static final Path ROOT =
            Path.of(System.getProperty("dupguard.root", "..")).normalize();

    private static final String MAIN =
            """
            package app;

            public class Main {
                public static void main(String[] args) throws Exception {
                    var locks = new io.dupguard.memory.InMemoryLockProvider();
                    var h2 = new org.h2.jdbcx.JdbcDataSource();
                    h2.setURL("jdbc:h2:mem:module-path;DB_CLOSE_DELAY=-1");
                    var store = io.dupguard.jdbc.JdbcIdempotencyStore.builder(h2).createSchemaIfMissing(true).build();
                    var once = io.dupguard.idempotency.Idempotency.of(store);
                    var key = io.dupguard.idempotency.IdempotencyKey.of("module", "k");
                    var none = io.dupguard.idempotency.Fingerprint.none();
                    String first = once.execute(key, none, String.class, () -> "ran").value();
                    String again = once.execute(key, none, String.class, () -> "ran twice").value();
                    try (var lease = locks.acquire("module", io.dupguard.lock.LockOptions.ofDefaults())) {
                        System.out.println(first + " " + again + " " + lease.isHeld());
                    }
                }
            }
            """;

    @TempDir
    Path dir;

    @Test
    void anApplicationModuleRunsOnTheExportedApi() throws Exception {
        Path out = compile(MAIN);

        Process run = new ProcessBuilder(
                        ProcessHandle.current().info().command().orElse("java"),
                        "--module-path",
                        out + File.pathSeparator + modulePath(),
                        "--add-modules",
                        "com.h2database",
                        "--add-reads",
                        "app=com.h2database",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                        "-m",
                        "app/app.Main")
                .redirectErrorStream(true)
                .start();
        assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(run.exitValue()).as(output).isZero();
        assertThat(output).contains("ran ran true");
    }

    @Test
    void theInternalPackageIsNotVisibleToApplications() throws Exception {
        String main = MAIN.replace(
                "System.out.println(first",
                "io.dupguard.internal.Checks.text(first, 9, \"x\");\n System.out.println(first");

        assertThat(javac(main)).contains("package io.dupguard.internal is not visible");
    }

    private Path compile(String main) throws IOException, URISyntaxException {
        String errors = javac(main);
        assertThat(errors).isEmpty();
        return dir.resolve("out");
    }

    /** Compiles module {@code app}; returns javac's messages, empty on success. */
    private String javac(String main) throws IOException, URISyntaxException {
        Path src = dir.resolve("src/app");
        Files.createDirectories(src.resolve("app"));
        Files.writeString(src.resolve("module-info.java"), "module app { requires io.dupguard.jdbc; }\n");
        Files.writeString(src.resolve("app/Main.java"), main);
        StringWriter messages = new StringWriter();
        int status = ToolProvider.findFirst("javac")
                .orElseThrow()
                .run(
                        new PrintWriter(messages),
                        new PrintWriter(messages),
                        "-d",
                        dir.resolve("out").toString(),
                        "--module-path",
                        modulePath(),
                        "--add-modules",
                        "com.h2database,java.naming",
                        "--add-reads",
                        "app=com.h2database,java.naming",
                        "--module-source-path",
                        dir.resolve("src").toString(),
                        "-m",
                        "app");
        return status == 0 ? "" : messages.toString();
    }

    private static String modulePath() throws URISyntaxException {
        List<Path> entries = List.of(
                ROOT.resolve("dupguard-core/target/classes"),
                ROOT.resolve("dupguard-jdbc/target/classes"),
                jarOf(org.slf4j.Logger.class),
                jarOf(org.h2.Driver.class));
        return String.join(
                File.pathSeparator, entries.stream().map(Path::toString).toList());
    }

    private static Path jarOf(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
