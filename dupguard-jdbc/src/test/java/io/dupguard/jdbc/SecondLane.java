package io.dupguard.jdbc;

/**
 * The module's second lane of tests (src/test/resources/junit-platform.properties). The classes
 * annotated {@code @Execution(CONCURRENT)} and {@code @ResourceLock(SecondLane.LOCK)} run there one
 * at a time, next to the main lane: the duplicate clean-up tests on the standalone PostgreSQL and
 * MariaDB ({@code PostgresDedupeIT}, {@code MariaDbDedupeIT} and their million-row {@code
 * *DedupeScaleIT}). They touch only their own tables ({@code t_account}, {@code t_scale}, their
 * backup and plan tables, and their own rows of {@code dupguard_dedupe_runs}), kill no connection
 * and stop no server, and much of their time is the database's (deletes, online index builds):
 * what one lane waits for, the other fills.
 *
 * <p>The lock waits their writers and index builds cause are left out of {@link
 * TestDatabases#lockWaits}. {@code GaleraDedupeIT} stays in the main lane: its DDL is applied in
 * total order on every node and would stall the main lane's Galera tests. No class of the second
 * lane may be annotated {@code ExpectedWarnings}: it swaps {@code System.err} for the whole JVM.
 */
public final class SecondLane {
    /** The resource every class of the second lane holds while it runs. */
    public static final String LOCK = "dupguard-jdbc-second-lane";

    private SecondLane() {}
}
