package io.dupguard.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.bench.ReplicaAcksBench.Window;
import io.dupguard.bench.harness.Cli;
import io.dupguard.bench.harness.CommonOptions;
import io.dupguard.bench.harness.LoadOptions;
import io.dupguard.bench.harness.MachineInfo;
import io.dupguard.bench.harness.Markdown;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import io.dupguard.idempotency.RecordStatus;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.jdbc.JdbcLockProvider;
import io.dupguard.jdbc.JdbcTransactionalIdempotency;
import io.dupguard.lab.env.LabPostgresPair;
import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What synchronous PostgreSQL replication costs (issue 24): claim+complete on {@link
 * JdbcIdempotencyStore} (two commits), {@link JdbcTransactionalIdempotency#executeInTransaction} (one
 * commit) and acquire+release on {@link JdbcLockProvider}, on a primary with one streaming standby that
 * this run starts for itself ({@link LabPostgresPair}, free loopback ports, {@code fsync} on unless
 * {@code --fsync-off}), never the shared servers of {@code scripts/services}. The baseline names no
 * synchronous standby (asynchronous replication); the other settings name the standby in {@code
 * synchronous_standby_names} and set {@code synchronous_commit} per session ({@code off}, {@code local},
 * {@code remote_write}, {@code on}, {@code remote_apply}) on the pool's connections. After an unmeasured
 * round, every round runs every row once, the order of the settings alternating; the table shows the
 * median of the rounds' ops/s and p99. Run it with {@code scripts/bench-sync-replication}.
 */
public final class SyncReplicationBench {
    private static final byte[] PAYLOAD = "{\"status\":201}".getBytes(StandardCharsets.UTF_8);
    private static final String IDEMPOTENCY_TABLE = "bench_sync_idempotency";
    private static final String LOCK_TABLE = "bench_sync_locks";

    /** Command-line options of {@code scripts/bench-sync-replication}: the shared ones and {@code --fsync-off}. */
    @Command(
            name = "scripts/bench-sync-replication",
            mixinStandardHelpOptions = true,
            defaultValueProvider = Options.Defaults.class,
            description = "Claim+complete, the transactional mode and JDBC lock acquire+release on a PostgreSQL"
                    + " primary with a streaming standby, asynchronous and under each synchronous_commit.",
            footer = {"", "DURATION: 500ms, 3s, 1.5s, 1m, PT3S, or a plain number of seconds."})
    static final class Options extends LoadOptions {
        static final class Defaults extends CommonOptions.Defaults {
            Defaults() {
                super(Map.of("--threads", "8", "--prewarm", "1s", "--rounds", "3"));
            }
        }

        @Option(
                names = "--fsync-off",
                description = "run both servers with fsync and full_page_writes off (as the lab's pairs);"
                        + " by default they flush as a production server does")
        boolean fsyncOff;
    }

    /** One row's replication setting. */
    record Setting(boolean named, String synchronousCommit) {
        String standbyNames() {
            return named ? "`'*'` (the standby)" : "`''` (async)";
        }
    }

    static final List<Setting> SETTINGS = List.of(
            new Setting(false, "on"),
            new Setting(true, "off"),
            new Setting(true, "local"),
            new Setting(true, "remote_write"),
            new Setting(true, "on"),
            new Setting(true, "remote_apply"));

    static final List<String> WORKLOADS = List.of("claim+complete", "transactional", "lock acquire+release");

    private SyncReplicationBench() {}

    public static void main(String[] args) throws Exception {
        String command = Cli.commandLine("scripts/bench-sync-replication", args);
        System.exit(Cli.run(new Options(), args, o -> run(o, command)));
    }

    static int run(Options o, String command) throws Exception {
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        Map<String, String> machine = MachineInfo.collect();
        List<List<Window>> windows = ReplicaAcksBench.rows(SETTINGS.size() * WORKLOADS.size());
        long errors = 0;
        Map<String, String> settings = new LinkedHashMap<>();
        try (LabPostgresPair pair = new LabPostgresPair(false, !o.fsyncOff)) {
            settings.putAll(serverSettings(pair));
            createTables(pair.url());
            boolean named = false;
            // Round 0 is an unmeasured pass over every row (JIT, connections, the servers' caches).
            for (int round = 0; round <= o.rounds(); round++) {
                for (int k = 0; k < SETTINGS.size(); k++) {
                    int s = round % 2 == 1 ? k : SETTINGS.size() - 1 - k; // order alternating
                    Setting setting = SETTINGS.get(s);
                    if (named != setting.named()) {
                        pair.synchronousStandby(setting.named());
                        named = setting.named();
                    }
                    Duration window = round == 0 ? o.prewarm() : o.duration();
                    try (HikariDataSource pool = pool(pair.url(), setting, o.threads() + 2)) {
                        for (int w = 0; w < WORKLOADS.size(); w++) {
                            Window r = measure(w, pool, o, window);
                            errors += r.errors();
                            if (round > 0) {
                                windows.get(w * SETTINGS.size() + s).add(r);
                            }
                            Cli.log(String.format(
                                    Locale.ROOT,
                                    "round %d  %-21s %-5s %-13s %10s ops/s  p99 %8s µs%s",
                                    round,
                                    WORKLOADS.get(w),
                                    setting.named() ? "sync" : "async",
                                    setting.synchronousCommit(),
                                    Markdown.ops(r.opsPerSecond()),
                                    Markdown.micros(r.p99Micros()),
                                    r.errors() > 0 ? "  ERRORS " + r.errors() + ": " + r.firstError() : ""));
                        }
                    }
                }
            }
        }
        Markdown.Table t = new Markdown.Table(
                "lllrrrr",
                "workload",
                "synchronous_standby_names",
                "synchronous_commit",
                "ops/s",
                "p99 µs",
                "ops/s vs async",
                "p99 vs async");
        for (int w = 0; w < WORKLOADS.size(); w++) {
            List<Window> async = windows.get(w * SETTINGS.size());
            double baseOps = ReplicaAcksBench.median(async, Window::opsPerSecond);
            double baseP99 = ReplicaAcksBench.median(async, Window::p99Micros);
            for (int s = 0; s < SETTINGS.size(); s++) {
                List<Window> rounds = windows.get(w * SETTINGS.size() + s);
                double ops = ReplicaAcksBench.median(rounds, Window::opsPerSecond);
                double p99 = ReplicaAcksBench.median(rounds, Window::p99Micros);
                t.row(
                        WORKLOADS.get(w),
                        SETTINGS.get(s).standbyNames(),
                        "`" + SETTINGS.get(s).synchronousCommit() + "`",
                        Markdown.ops(ops),
                        Markdown.micros(p99),
                        Markdown.ratio(ops / baseOps),
                        Markdown.ratio(p99 / baseP99));
            }
        }
        return ReplicaAcksBench.report(command, started, t0, machine, settings, o, t, errors);
    }

    /** The pool of one row: every connection runs with the row's {@code synchronous_commit}. */
    private static HikariDataSource pool(String url, Setting setting, int size) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setMaximumPoolSize(size);
        c.setMinimumIdle(size);
        c.setConnectionInitSql("SET synchronous_commit = " + setting.synchronousCommit());
        c.setPoolName("sync-" + setting.synchronousCommit());
        return new HikariDataSource(c);
    }

    private static void createTables(String url) throws SQLException {
        try (HikariDataSource ds = pool(url, SETTINGS.get(0), 1)) {
            JdbcIdempotencyStore.builder(ds)
                    .tableName(IDEMPOTENCY_TABLE)
                    .createSchemaIfMissing(true)
                    .build()
                    .dialect();
            JdbcLockProvider.builder(ds)
                    .tableName(LOCK_TABLE)
                    .createSchemaIfMissing(true)
                    .build()
                    .dialect();
        }
    }

    private static Map<String, String> serverSettings(LabPostgresPair pair) throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection(pair.primaryAdminUrl());
                ResultSet rs = c.createStatement()
                        .executeQuery("SELECT version(), current_setting('fsync'), current_setting('full_page_writes'),"
                                + " current_setting('wal_sync_method')")) {
            rs.next();
            out.put(
                    "PostgreSQL",
                    rs.getString(1) + "; primary + streaming standby started by the run (LabPostgresPair, loopback,"
                            + " this machine), fsync " + rs.getString(2) + ", full_page_writes " + rs.getString(3)
                            + ", wal_sync_method " + rs.getString(4));
        }
        return out;
    }

    private static Window measure(int workload, HikariDataSource pool, Options o, Duration window)
            throws InterruptedException {
        String prefix =
                "bench-sync-" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + "-";
        switch (workload) {
            case 0 -> {
                JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool)
                        .tableName(IDEMPOTENCY_TABLE)
                        .build();
                Duration lease = Duration.ofSeconds(30);
                Duration retention = Duration.ofMinutes(10);
                return ReplicaAcksBench.measure(o, window, (thread, i) -> {
                    IdempotencyKey key = IdempotencyKey.of("bench", prefix + thread + "-" + i);
                    String owner = "bench-" + thread;
                    if (store.claim(key, Fingerprint.none(), owner, lease) != Claim.FRESH) {
                        throw new IllegalStateException("a fresh key was not claimed: " + key);
                    }
                    store.complete(key, owner, RecordStatus.COMPLETED, PAYLOAD, retention);
                });
            }
            case 1 -> {
                JdbcTransactionalIdempotency tx = JdbcTransactionalIdempotency.of(JdbcIdempotencyStore.builder(pool)
                        .tableName(IDEMPOTENCY_TABLE)
                        .build());
                return ReplicaAcksBench.measure(o, window, (thread, i) -> {
                    IdempotencyKey key = IdempotencyKey.of("bench", prefix + thread + "-" + i);
                    Outcome<String> out = tx.executeInTransaction(key, Fingerprint.none(), String.class, c -> "ok");
                    if (out.isReplay()) {
                        throw new IllegalStateException("a fresh key was replayed: " + key);
                    }
                });
            }
            default -> {
                LockOptions options =
                        LockOptions.custom().leaseTime(Duration.ofSeconds(10)).build();
                JdbcLockProvider locks =
                        JdbcLockProvider.builder(pool).tableName(LOCK_TABLE).build();
                return ReplicaAcksBench.measure(o, window, (thread, i) -> {
                    Lease lease = locks.tryAcquire(prefix + thread, options)
                            .orElseThrow(() -> new IllegalStateException("an uncontended lock was refused"));
                    lease.close();
                });
            }
        }
    }
}
