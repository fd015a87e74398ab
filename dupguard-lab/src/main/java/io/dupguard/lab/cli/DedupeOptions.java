package io.dupguard.lab.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import io.dupguard.jdbc.dedupe.Comparison;
import io.dupguard.jdbc.dedupe.Dedupe;
import io.dupguard.jdbc.dedupe.Keep;
import io.dupguard.jdbc.dedupe.Rate;
import io.dupguard.lab.env.UnreachableException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/** The options every {@code dupguard dedupe} phase shares. */
final class DedupeOptions {
    @Option(
            names = "--jdbc-url",
            required = true,
            paramLabel = "URL",
            description = "The database, e.g. jdbc:postgresql://127.0.0.1:5432/app?user=postgres"
                    + " or jdbc:mariadb://127.0.0.1:3306/app?user=root")
    String jdbcUrl;

    @Option(names = "--user", paramLabel = "NAME", description = "Database user (or in the URL)")
    String user;

    @Option(
            names = "--password-env",
            paramLabel = "VAR",
            description = "Environment variable holding the password (never on the command line)")
    String passwordEnv;

    @Option(names = "--table", required = true, paramLabel = "T", description = "The table to clean")
    String table;

    @Option(
            names = "--key",
            required = true,
            split = ",",
            paramLabel = "COL",
            description = "Key column(s) that must be unique, e.g. open_id or tenant_id,email")
    List<String> key;

    @Option(
            names = "--compare",
            paramLabel = "HOW",
            description = "exact (default), ignore-case, trim, nfc (PostgreSQL), or a comma-separated mix")
    String compare = "exact";

    @Option(
            names = "--keep",
            paramLabel = "RULE",
            description = "Which row of a group stays: oldest:COLUMN, lowest:COLUMN, newest:COLUMN or"
                    + " 'order:COL [DESC],...' (default: lowest:<primary key>)")
    String keep;

    @Option(
            names = "--merge-check",
            split = ",",
            paramLabel = "COL",
            description = "Leave groups alone (for a person) whose rows differ in these columns")
    List<String> mergeCheck = List.of();

    @Option(names = "--id", paramLabel = "COL", description = "Row id column if the primary key is not one column")
    String id;

    @Option(
            names = "--rate",
            paramLabel = "N/s",
            description = "Deletion limit: 500/s, 1000keys/min, unlimited (default: 1000/s)")
    String rate = "1000/s";

    @Option(
            names = "--batch",
            paramLabel = "N",
            description = "Rows per batch, each one transaction (default: ${DEFAULT-VALUE})")
    int batch = Dedupe.DEFAULT_BATCH_SIZE;

    @Option(
            names = "--pause",
            paramLabel = "TIME",
            converter = DurationConverter.class,
            description = "Pause after every batch, on top of the rate (e.g. 200ms)")
    Duration pause = Duration.ZERO;

    @Option(names = "--backup-table", paramLabel = "T", description = "Backup table (default: <table>_dedupe_backup)")
    String backupTable;

    @Option(names = "--index", paramLabel = "NAME", description = "Unique index name (default: ux_<table>_<key>)")
    String index;

    @Option(names = "--sample", paramLabel = "N", description = "Groups shown with their rows (default: 5)")
    int sample = Dedupe.DEFAULT_SAMPLE_GROUPS;

    @Option(
            names = "--max-clean",
            paramLabel = "N",
            description = "Duplicate rows guard deletes on its own before asking for apply (default: 10000)")
    long maxClean = Dedupe.DEFAULT_GUARD_MAX_CLEAN_ROWS;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the result as JSON")
    Path json;

    /** Opens a small pool; an unreachable server is reported as such (exit 2). */
    HikariDataSource open() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        if (user != null) {
            config.setUsername(user);
        }
        if (passwordEnv != null) {
            String password = System.getenv(passwordEnv);
            if (password == null) {
                throw new IllegalArgumentException(
                        "--password-env: environment variable " + passwordEnv + " is not set");
            }
            config.setPassword(password);
        }
        config.setMaximumPoolSize(2);
        config.setPoolName("dupguard-dedupe");
        config.setConnectionTimeout(10_000);
        try {
            return new HikariDataSource(config);
        } catch (HikariPool.PoolInitializationException | IllegalArgumentException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new UnreachableException("cannot connect to " + jdbcUrl + ": " + cause.getMessage(), e);
        }
    }

    /** The library object for these options; bad values fail here with the option's name. */
    Dedupe dedupe(HikariDataSource ds) {
        Dedupe.Builder b = Dedupe.builder(ds)
                .table(table)
                .key(key)
                .compare(Comparison.parse(compare))
                .mergeCheck(mergeCheck)
                .idColumn(id)
                .batchSize(batch)
                .rate(Rate.parse(rate))
                .pause(pause)
                .backupTable(backupTable)
                .indexName(index)
                .sampleGroups(sample)
                .guardMaxCleanRows(maxClean);
        if (keep != null) {
            b.keep(Keep.parse(keep));
        }
        return b.build();
    }
}
