package io.dupguard.lab;

/**
 * The module's second lane of tests (src/test/resources/junit-platform.properties). The classes
 * annotated {@code @Execution(CONCURRENT)} and {@code @ResourceLock(SecondLane.LOCK)} run there one
 * at a time (the lock also runs each class's tests one at a time), next to the main lane: the probe
 * ITs, the storms on the embedded H2 ({@link StormH2IT}, {@code HtmlReportIT}), {@code
 * DedupeCliIT}, {@link ShadedJarIT} and {@link LauncherIT}. They use none of what the main lane's
 * storms share — the {@code dupguard_lab_*} tables of PostgreSQL, the servers the faults stall,
 * restart, fail over or kill connections of, the faults themselves (one object per fault in the
 * JVM) — only their own tables, queues, topics, brokers, in-memory H2 databases and child
 * processes. Much of their time is waiting (kill windows, settle times, launched JVMs), and a
 * storm's length is fixed: what one lane waits for, the other fills.
 *
 * <p>A test that counts what the whole JVM or the shared database holds (threads, database
 * sessions: {@link SoakIT}), or whose fault depends on timing the other lane's load could upset
 * (the failovers and the lagging standby: {@link StormPgFailoverIT}, {@link StormRedisFailoverIT},
 * {@link StormGaleraIT}, {@link StormReplicaLagIT}), holds {@link #LOCK} too, so that nothing of
 * the second lane runs meanwhile; it is ordered last ({@code @Order(SecondLane.ALONE)}), so that the
 * main lane does not wait for the lock while it has other classes to run. {@code ExpectedWarnings}
 * may be used in either lane: its capture keeps what every test running at the time writes.
 */
public final class SecondLane {
    /** The resource every class of the second lane holds while it runs. */
    public static final String LOCK = "dupguard-lab-second-lane";

    /** The {@code @Order} of a main-lane class that holds {@link #LOCK}: after every other class. */
    public static final int ALONE = Integer.MAX_VALUE;

    private SecondLane() {}
}
