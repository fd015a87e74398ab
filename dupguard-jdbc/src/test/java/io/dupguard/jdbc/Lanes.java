package io.dupguard.jdbc;

/**
 * The module's lanes of tests (src/test/resources/junit-platform.properties). A class annotated
 * {@code @Execution(CONCURRENT)} and {@code @ResourceLock} with one of the lanes below runs in that
 * lane, one class at a time (the lock also runs the class's tests one at a time), next to the main
 * lane and the other lanes. Every other class runs in the main lane, one at a time.
 *
 * <p>A lane is a set of servers no class of another lane touches, so that what one lane does to its
 * servers (a lock held, a connection killed, a replica set read-only, DDL applied in total order)
 * cannot reach another's tests; the classes of one lane share their servers as the main lane's
 * always have:
 *
 * <ul>
 *   <li>{@link #MARIADB}: the classes on the standalone MariaDB (3306) only, ShardingSphere's MariaDB
 *       shards (databases of the same server), and the MariaDB replica pair (3316/3317): the store
 *       contracts, the retry logs and faults, the submissions, MySQL's statements, the duplicate
 *       clean-up and the read-only replica.
 *   <li>{@link #GALERA}: the classes on the Galera nodes (3326–3328) only, the duplicate clean-up's
 *       Galera test included (its DDL is applied in total order on every node).
 *   <li>{@link #POSTGRES_DEDUPE}: the duplicate clean-up tests on the standalone PostgreSQL ({@code
 *       PostgresDedupeIT} and its million-row {@code PostgresDedupeScaleIT}), on tables of their own
 *       ({@code t_account}, {@code t_scale}, their backup and plan tables, their own rows of {@code
 *       dupguard_dedupe_runs}): much of their time is the database's (deletes, online index builds).
 * </ul>
 *
 * <p>The main lane's classes that also use MariaDB or Galera (those run against every database) use
 * their own keys and tables, as every class does. The lock waits a few of them await are counted
 * by {@link TestDatabases#lockWaits}, which leaves out the duplicate clean-up's sessions; a lock
 * wait of another lane's class can only end such a wait early, never make a test fail.
 * {@code @ExpectedWarnings} may be used in any lane: its capture keeps what every test running at
 * the time writes.
 */
public final class Lanes {
    /** The lock of the lane on the standalone MariaDB, its ShardingSphere shards and its replica pair. */
    public static final String MARIADB = "dupguard-jdbc-lane-mariadb";

    /** The lock of the lane on the Galera nodes. */
    public static final String GALERA = "dupguard-jdbc-lane-galera";

    /** The lock of the lane of the duplicate clean-up tests on the standalone PostgreSQL. */
    public static final String POSTGRES_DEDUPE = "dupguard-jdbc-lane-postgres-dedupe";

    private Lanes() {}
}
