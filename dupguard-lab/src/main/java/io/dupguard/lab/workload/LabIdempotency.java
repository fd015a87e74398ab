package io.dupguard.lab.workload;

import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.InFlightPolicy;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.LabSql;
import java.sql.SQLException;
import java.time.Duration;

/** How the lab's dupguard strategies configure idempotency, shared by every workload. */
public final class LabIdempotency {
    /**
     * The in-flight lease of the lab's claims and the watchdog lease of its waiting locks: renewed
     * while the holder lives (every third of it), so only a crashed instance's claims and locks run
     * out — and are taken over within a short storm, well inside a waiting retry's 10 s.
     */
    public static final Duration LEASE = Duration.ofSeconds(2);

    /**
     * A retry that arrives while its first attempt still runs waits for it and replays its answer
     * (guarantee K4, "wait"): what a retrying client wants. Records are kept just long enough for a run.
     */
    public static final IdempotencyConfig CONFIG = IdempotencyConfig.custom()
            .retention(Duration.ofMinutes(10))
            .inFlightLease(LEASE)
            .inFlightPolicy(InFlightPolicy.waitUpTo(Duration.ofSeconds(10)))
            .build();

    private LabIdempotency() {}

    /** A JDBC store on a freshly created table {@code table}, created before the storm starts. */
    public static JdbcIdempotencyStore freshJdbcStore(LabEnvironment env, String table) throws SQLException {
        LabSql.recreate(env.dataSource(), new String[] {table});
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(env.dataSource())
                .tableName(table)
                .createSchemaIfMissing(true)
                .build();
        store.dialect(); // creates the table now, not under the first burst of claims
        return store;
    }

    /**
     * A Redis key prefix no earlier trial shares (request ids repeat from trial to trial), so an
     * old trial's records never answer this one.
     */
    public static String redisPrefix(LabEnvironment env, String workload) {
        return "dupguard:lab:" + env.runId() + ":" + workload + ":" + env.nextTrial() + ":";
    }
}
