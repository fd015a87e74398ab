package io.dupguard.lab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.lab.LabCli;
import io.dupguard.test.ExpectedWarnings;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad options and unreachable servers end with status 2 and one line saying what is wrong. */
@ExpectedWarnings("HikariCP and Lettuce warn about the unreachable servers these tests name")
class StormCliTest {
    @TempDir
    Path dir;

    @Test
    void helpListsTheStormCommand() {
        LabCli.Result r = LabCli.run("--help");
        assertThat(r.status()).isZero();
        assertThat(r.out()).contains("Usage: dupguard").contains("storm");
    }

    @Test
    void helpCommandIsTheSameAsTheHelpOption() {
        LabCli.Result r = LabCli.run("help");
        assertThat(r.status()).as("stderr: %s", r.err()).isZero();
        assertThat(r.out()).isEqualTo(LabCli.run("--help").out());
    }

    @Test
    void helpCommandNamesASubcommand() {
        LabCli.Result r = LabCli.run("help", "storm");
        assertThat(r.status()).as("stderr: %s", r.err()).isZero();
        assertThat(r.out()).isEqualTo(LabCli.run("storm", "--help").out());
    }

    @Test
    void stormHelpDescribesEveryOption() {
        LabCli.Result r = LabCli.run("storm", "--help");
        assertThat(r.status()).isZero();
        assertThat(r.out())
                .contains("--workload", "--strategy", "--clients", "--duration", "--seed")
                .contains("--jdbc-url", "--redis-url", "--redlock-urls", "--zookeeper", "--json", "--html")
                .contains(
                        "account-binding", "payment", "balance-init", "order-payment", "form-submit", "lock-backends");
    }

    @Test
    void versionNamesTheRelease() {
        LabCli.Result r = LabCli.run("--version");
        assertThat(r.status()).isZero();
        assertThat(r.out()).startsWith("dupguard ").doesNotContain("unknown");
    }

    @Test
    void listShowsEveryWorkloadWithItsStrategiesAndFamilies() {
        LabCli.Result r = LabCli.run("storm", "--list");
        assertThat(r.status()).isZero();
        assertThat(r.out())
                .contains("account-binding", "select-then-insert", "unique-key-catch", "insert-ignore-reread")
                .contains("payment", "none", "idempotency-jdbc-tx", "idempotency-redis", "[needs --redis-url]")
                .contains("balance-init", "retry-lock-requery", "insert-if-absent")
                .contains("order-payment", "lock-and-transitions")
                .contains("form-submit", "throttle", "token", "prepared")
                .contains("lock-backends", "[only with --workload all or by name]", "jdbc-fenced")
                .contains("[needs --redlock-urls]", "[needs --zookeeper]")
                .contains("naive", "dupguard");
    }

    @Test
    void noSubcommandPrintsUsageAndFails() {
        LabCli.Result r = LabCli.run();
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("Usage: dupguard");
    }

    @Test
    void unknownWorkloadIsRejectedNamingTheKnownOnes() {
        assertUsageError(
                LabCli.run("storm", "--workload", "account-binding,checkout"),
                "unknown workload 'checkout'; known: account-binding, payment, balance-init, order-payment,"
                        + " form-submit, account-credit, lock-backends, or all");
    }

    @Test
    void unknownStrategyIsRejected() {
        assertUsageError(LabCli.run("storm", "--strategy", "select-then-insert,magic"), "unknown strategy 'magic'");
    }

    @Test
    void strategyOfAnotherWorkloadIsRejected() {
        assertUsageError(
                LabCli.run("storm", "--workload", "account-binding", "--strategy", "none"), "unknown strategy 'none'");
    }

    @Test
    void redisStrategyWithoutRedisUrlIsRejected() {
        assertUsageError(LabCli.run("storm", "--strategy", "idempotency-redis"), "needs --redis-url");
    }

    @Test
    void redlockStrategyWithoutRedlockUrlsIsRejected() {
        assertUsageError(
                LabCli.run("storm", "--workload", "lock-backends", "--strategy", "redlock-fenced"),
                "strategy 'redlock-fenced' needs --redlock-urls");
    }

    @Test
    void zookeeperStrategyWithoutZookeeperIsRejected() {
        assertUsageError(LabCli.run("storm", "--strategy", "zookeeper-unfenced"), "needs --zookeeper");
    }

    @Test
    void redlockNeedsThreeServers() {
        assertUsageError(
                LabCli.run("storm", "--redlock-urls", "redis://127.0.0.1:7100,redis://127.0.0.1:7101"),
                "--redlock-urls needs at least 3 independent Redis servers, got 2");
    }

    @Test
    void redlockNodeAtAClosedPortFailsFastNamingIt() throws IOException {
        String url = "redis://127.0.0.1:" + closedPort() + ",redis://127.0.0.1:" + closedPort() + ",redis://127.0.0.1:"
                + closedPort();
        LabCli.Result r = LabCli.run("storm", "--redlock-urls", url);
        assertUsageError(r, "cannot reach Redlock node 127.0.0.1:");
        assertThat(r.took()).isLessThan(Duration.ofSeconds(15));
    }

    @Test
    void zookeeperAtAClosedPortFailsFast() throws IOException {
        String address = "127.0.0.1:" + closedPort();
        LabCli.Result r = LabCli.run("storm", "--zookeeper", address);
        assertUsageError(r, "cannot reach --zookeeper " + address);
        assertThat(r.took()).isLessThan(Duration.ofSeconds(15));
    }

    @Test
    void negativeClientsAreRejected() {
        assertUsageError(LabCli.run("storm", "--clients", "-3"), "--clients must be between 1 and 1024, was -3");
    }

    @Test
    void zeroClientsAreRejected() {
        assertUsageError(LabCli.run("storm", "--clients", "0"), "--clients must be between 1 and 1024, was 0");
    }

    @Test
    void duplicateRatesOutsideZeroToOneAreRejected() {
        assertUsageError(
                LabCli.run("storm", "--redelivery-rate", "1.5"), "--redelivery-rate must be between 0 and 1, was 1.5");
        assertUsageError(
                LabCli.run("storm", "--double-send-rate", "-0.1"),
                "--double-send-rate must be between 0 and 1, was -0.1");
        assertUsageError(LabCli.run("storm", "--redelivery-rate", "NaN"), "--redelivery-rate must be between 0 and 1");
    }

    @Test
    void nonNumericClientsAreRejected() {
        assertUsageError(LabCli.run("storm", "--clients", "many"), "'many' is not an int");
    }

    @Test
    void badDurationIsRejected() {
        assertUsageError(LabCli.run("storm", "--duration", "soon"), "'soon' is not a duration");
    }

    @Test
    void negativeDurationIsRejected() {
        assertUsageError(LabCli.run("storm", "--duration", "-1s"), "--duration");
    }

    @Test
    void zeroDurationIsRejected() {
        assertUsageError(LabCli.run("storm", "--duration", "0s"), "'0s' is not a positive duration");
    }

    @Test
    void unknownOptionIsRejected() {
        assertUsageError(LabCli.run("storm", "--turbo"), "Unknown option: '--turbo'");
    }

    @Test
    void jsonIntoAMissingDirectoryIsRejectedBeforeTheStorm() {
        assertUsageError(
                LabCli.run("storm", "--json", dir.resolve("missing/out.json").toString()), "does not exist");
    }

    @Test
    void jdbcUrlToAClosedPortFailsFastNamingTheUrl() throws IOException {
        String url = "jdbc:postgresql://127.0.0.1:" + closedPort() + "/test?user=postgres&password=secret";
        LabCli.Result r = LabCli.run("storm", "--jdbc-url", url);
        assertUsageError(r, "cannot connect to --jdbc-url jdbc:postgresql://127.0.0.1:");
        assertThat(r.err()).contains("password=***").doesNotContain("secret");
        assertThat(r.took()).isLessThan(Duration.ofSeconds(15));
    }

    @Test
    void jdbcUrlToAClosedMariaDbPortFailsFast() throws IOException {
        LabCli.Result r =
                LabCli.run("storm", "--jdbc-url", "jdbc:mariadb://127.0.0.1:" + closedPort() + "/test?user=root");
        assertUsageError(r, "cannot connect to --jdbc-url jdbc:mariadb://127.0.0.1:");
        assertThat(r.took()).isLessThan(Duration.ofSeconds(15));
    }

    @Test
    void jdbcUrlWithoutABundledDriverIsRejected() {
        assertUsageError(LabCli.run("storm", "--jdbc-url", "jdbc:oracle:thin:@//db:1521/x"), "no JDBC driver");
    }

    @Test
    void redisUrlToAClosedPortFailsFastNamingTheUrl() throws IOException {
        String url = "redis://127.0.0.1:" + closedPort();
        LabCli.Result r = LabCli.run("storm", "--redis-url", url);
        assertUsageError(r, "cannot reach --redis-url " + url);
        assertThat(r.took()).isLessThan(Duration.ofSeconds(15));
    }

    @Test
    void redisClusterUrlToClosedPortsFailsFast() throws IOException {
        String url = "redis://127.0.0.1:" + closedPort() + ",redis://127.0.0.1:" + closedPort();
        LabCli.Result r = LabCli.run("storm", "--redis-url", url);
        assertUsageError(r, "cannot reach --redis-url " + url);
        assertThat(r.took()).isLessThan(Duration.ofSeconds(15));
    }

    @Test
    void malformedRedisUrlIsRejected() {
        assertUsageError(LabCli.run("storm", "--redis-url", "http://nope"), "invalid --redis-url");
    }

    private static void assertUsageError(LabCli.Result r, String message) {
        assertThat(r.status()).as("exit status; stderr: %s", r.err()).isEqualTo(2);
        assertThat(r.err().strip()).startsWith("dupguard: ").contains(message).doesNotContain("\n");
        assertThat(r.out()).isEmpty();
    }

    /** A loopback port nothing listens on: bound once by the OS, then closed. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
