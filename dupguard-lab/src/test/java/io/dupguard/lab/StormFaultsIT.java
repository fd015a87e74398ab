package io.dupguard.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dupguard.test.ExpectedWarnings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The storm under real faults on PostgreSQL + Redis: a 1 s store stall
 * (a table lock held by a side connection, {@code CLIENT PAUSE}) and the lab's own connections
 * terminated every 250 ms. Naive strategies may fail; every dupguard row on these (durable) settings
 * keeps 0 duplicate effects, 0 lost acknowledged requests and equal replays — errors surfaced to
 * clients are allowed (a completion whose connection is killed is retried within its lease).
 */
class StormFaultsIT {
    @TempDir
    Path dir;

    @Test
    void dupguardStrategiesHoldUnderStoreStallsAndKilledConnections() throws Exception {
        Path json = dir.resolve("faults.json");
        LabCli.Result r = LabCli.stormOnPostgresRedis(
                json,
                "--workload",
                "payment,account-binding",
                "--strategy",
                "none,idempotency-jdbc,idempotency-jdbc-tx,idempotency-redis,select-then-insert,unique-key-catch,lock",
                "--faults",
                "store-stall,connection-kill",
                "--duration",
                "1500ms",
                "--clients",
                "24",
                "--html",
                dir.resolve("faults.html").toString());

        List<String> faultsSeen = new ArrayList<>();
        for (StormJson.Row each : StormJson.rows(json)) {
            JsonNode row = each.json();
            String where = each.where() + "@" + row.get("fault").asText();
            assertThat(row.get("fault").asText()).as(where).isIn("store-stall", "connection-kill");
            // a killed completion is retried within the lease: every row here can keep the promise
            assertThat(row.get("durable").asBoolean()).as(where).isTrue();
            faultsSeen.add(row.get("fault").asText());
            assertThat(row.get("timeline").size()).as(where + " timeline").isPositive();
            assertThat(row.get("faultWindows").size())
                    .as(where + " fault windows")
                    .isPositive();
            if (each.dupguard()) {
                StormJson.assertHolds(where, row);
            }
        }
        assertThat(faultsSeen).contains("store-stall", "connection-kill");
        assertThat(r.out()).contains("@store-stall").contains("@connection-kill");
        assertThat(java.nio.file.Files.readString(dir.resolve("faults.html")))
                .contains("chart timeline")
                .contains("class=\"fault\"");
    }

    /**
     * form-submit's prepared strategy reaches the store while a request is being prepared (the form
     * is rendered with its prepared submission): a killed connection there is an error page the client
     * reloads, counted as an error surfaced to the client, never a failure of the lab (the 10-minute
     * soak stopped on it once).
     */
    @Test
    void aStoreErrorWhilePreparingARequestIsAnErrorTheClientSeesNotALabFailure() throws Exception {
        Path json = dir.resolve("form-faults.json");
        LabCli.stormOnPostgresRedis(
                json,
                "--workload",
                "form-submit",
                "--strategy",
                "prepared",
                "--faults",
                "connection-kill",
                "--duration",
                "1500ms",
                "--clients",
                "24");

        for (StormJson.Row each : StormJson.rows(json)) {
            assertThat(each.json().get("fault").asText()).as(each.where()).isEqualTo("connection-kill");
            StormJson.assertHolds(each.where(), each.json());
        }
    }

    /**
     * A restart of a Redis without persistence forgets claims and results: duplicate effects are the
     * honest outcome, reported as a store-durability limit (durable false) that does not fail the
     * run; with appendonly + appendfsync always the restarted server remembers, and dupguard holds.
     */
    @Test
    void redisRestartShowsTheDurabilityLimitWithoutPersistenceAndHoldsWithAnAppendOnlyFile() throws Exception {
        Path json = dir.resolve("restart.json");
        LabCli.stormOnPostgresRedis(
                json,
                "--workload",
                "payment",
                "--strategy",
                "idempotency-redis",
                "--faults",
                "redis-restart,redis-restart-aof",
                "--duration",
                "2s",
                "--clients",
                "32");

        JsonNode rows = StormJson.read(json).get("workloads").get(0).get("strategies");
        assertThat(rows).hasSize(2);
        for (JsonNode row : rows) {
            String fault = row.get("fault").asText();
            if (fault.equals("redis-restart-aof")) {
                assertThat(row.get("durable").asBoolean()).isTrue();
                assertThat(row.get("duplicateEffects").asLong()).as(fault).isZero();
                assertThat(row.get("lost").asLong()).as(fault).isZero();
                assertThat(row.get("ok").asBoolean())
                        .as(fault + " " + row.get("violations"))
                        .isTrue();
            } else {
                assertThat(fault).isEqualTo("redis-restart");
                assertThat(row.get("durable").asBoolean()).isFalse();
            }
            assertThat(row.get("faultWindows").size()).as(fault).isOne();
        }
    }

    /**
     * A second application instance serves a third of the clients and dies mid-flight: its pool's
     * connections aborted, its Redis client dropped, nothing completed or released. Its clients retry
     * on the survivor, which takes the dead instance's claims and locks over after their lease; every
     * operation still takes effect once where effect and record commit together, and the two
     * strategies whose charge commits apart from their record are reported as a limit, not passed.
     */
    @Test
    void aCrashedInstancesClaimsAndLocksAreTakenOverAndEveryOperationTakesEffectOnce() throws Exception {
        Path json = dir.resolve("crash.json");
        LabCli.stormOnPostgresRedis(
                json,
                "--workload",
                "payment,account-binding",
                "--strategy",
                "none,idempotency-memory,idempotency-jdbc,idempotency-jdbc-tx,idempotency-redis,lock,idempotency",
                "--faults",
                "instance-crash",
                "--duration",
                "2s",
                "--clients",
                "24");

        List<String> rows = new ArrayList<>();
        for (StormJson.Row each : StormJson.rows(json)) {
            JsonNode row = each.json();
            String where = each.where();
            rows.add(where);
            StormJson.assertCrashed(each);
            assertThat(row.get("faultWindows").size()).as(where).isOne();
            boolean apart = where.equals("payment/idempotency-jdbc") || where.equals("payment/idempotency-redis");
            assertThat(row.get("durable").asBoolean()).as(where).isEqualTo(!apart);
            // a charge the dead instance committed before its completion may honestly run again
            if (each.dupguard() && !apart) {
                StormJson.assertHolds(where, row);
            }
        }
        // the in-memory store cannot be shared by two instances: not run under this fault
        assertThat(rows)
                .containsExactlyInAnyOrder(
                        "payment/none",
                        "payment/idempotency-jdbc",
                        "payment/idempotency-jdbc-tx",
                        "payment/idempotency-redis",
                        "account-binding/lock",
                        "account-binding/idempotency");
    }

    /**
     * The crash on every lock backend two instances can share, and on balance-init: the second
     * instance has its own pool, Redis client, Redlock client and ZooKeeper session. The dead
     * instance's lock rows and Redis / Redlock keys run out after their 600 ms lease, its ZooKeeper
     * connection is cut (nothing it sends gets through) and its session expired by the server; the
     * survivor takes the locks over with newer fencing tokens, fenced rows refuse every stale write,
     * and no lock is granted twice within a lease — a dead holder, gone without releasing, counts as
     * inside until its lease runs out. Pairs two instances cannot share are skipped, saying why.
     */
    @Test
    @ExpectedWarnings("ZooKeeper and Curator log the crashed instance's dropped session and its expiry")
    void aCrashedInstancesLocksAreTakenOverOnEveryBackendAndStaleTokensRefused() throws Exception {
        Path json = dir.resolve("crash-locks.json");
        LabCli.Result r = LabCli.stormOnPostgresRedis(
                json,
                "--workload",
                "lock-backends,balance-init",
                "--strategy",
                "memory-fenced,jdbc-unfenced,jdbc-fenced,redis-fenced,redlock-fenced,zookeeper-fenced,"
                        + "insert-if-absent,lock-double-check",
                "--faults",
                "instance-crash",
                "--duration",
                "2s",
                "--clients",
                "24",
                "--redlock-urls",
                StormLockBackendsIT.REDLOCK,
                "--zookeeper",
                "embedded");

        List<String> rows = new ArrayList<>();
        for (StormJson.Row each : StormJson.rows(json)) {
            JsonNode row = each.json();
            String where = each.where();
            rows.add(where);
            StormJson.assertCrashed(each);
            assertThat(row.get("durable").asBoolean()).as(where).isTrue();
            if (each.workload().equals("lock-backends")) {
                assertThat(row.get("metrics").get("exclusionViolations").asLong())
                        .as(where + " locks granted twice within a lease")
                        .isZero();
            }
            if (each.dupguard()) {
                StormJson.assertHolds(where, row);
            }
        }
        assertThat(rows)
                .containsExactlyInAnyOrder(
                        "lock-backends/jdbc-unfenced",
                        "lock-backends/jdbc-fenced",
                        "lock-backends/redis-fenced",
                        "lock-backends/redlock-fenced",
                        "lock-backends/zookeeper-fenced",
                        "balance-init/insert-if-absent");
        assertThat(r.err())
                .contains("skipping lock-backends/memory-fenced @instance-crash: an in-memory lock lives in one JVM")
                .contains("skipping balance-init/lock-double-check @instance-crash: CreateOnce takes its lock");
    }

    @Test
    void unknownOrInapplicableFaultsAreRefusedClearly() {
        LabCli.Result unknown = LabCli.run("storm", "--faults", "meteor", "--duration", "100ms");
        assertThat(unknown.status()).isEqualTo(2);
        assertThat(unknown.err()).contains("unknown fault 'meteor'").contains("store-stall");

        LabCli.Result embedded = LabCli.run("storm", "--faults", "connection-kill", "--duration", "100ms");
        assertThat(embedded.status()).isEqualTo(2);
        assertThat(embedded.err()).contains("connection-kill").contains("--jdbc-url");

        LabCli.Result noServer = LabCli.run("storm", "--faults", "instance-crash", "--duration", "100ms");
        assertThat(noServer.status()).isEqualTo(2);
        assertThat(noServer.err()).contains("instance-crash").contains("--jdbc-url");
    }
}
