package io.dupguard.redis;

/**
 * The module's lanes of tests (src/test/resources/junit-platform.properties). A class annotated
 * {@code @Execution(CONCURRENT)} and {@code @ResourceLock} with one of the lanes below runs in that
 * lane, one class at a time (the lock also runs the class's tests one at a time), next to the main
 * lane and the other lanes. Every other class runs in the main lane, one at a time: those on the
 * standalone Redis (6379) and on servers of their own ({@link ThrowawayRedis}).
 *
 * <p>A lane is a set of servers no class of another lane touches, so that what one lane does to its
 * servers (a pause, a replica paused, a failover, a killed connection) cannot reach another's tests:
 *
 * <ul>
 *   <li>{@link #CLUSTER}: the Redis Cluster on 7000–7002 (its nodes are paused by the outage tests).
 *   <li>{@link #REPLICA_CLUSTER}: the Cluster with replicas on 7300–7305 (failed over and back).
 *   <li>{@link #SENTINEL}: the Sentinel-managed master and replicas on 7200–7202 and their Sentinels.
 *   <li>{@link #REDLOCK}: the three independent nodes on 7100–7102 (paused by the quorum tests).
 * </ul>
 *
 * <p>A class that uses servers of two lanes holds both locks. {@code @ExpectedWarnings} may be used
 * in any lane: its capture keeps what every test running at the time writes.
 */
public final class Lanes {
    /** The lock of the lane on the Redis Cluster (7000–7002). */
    public static final String CLUSTER = "dupguard-redis-lane-cluster";

    /** The lock of the lane on the Redis Cluster with replicas (7300–7305). */
    public static final String REPLICA_CLUSTER = "dupguard-redis-lane-replica-cluster";

    /** The lock of the lane on the Sentinel set (7200–7202, Sentinels 26400–26402). */
    public static final String SENTINEL = "dupguard-redis-lane-sentinel";

    /** The lock of the lane on the Redlock nodes (7100–7102). */
    public static final String REDLOCK = "dupguard-redis-lane-redlock";

    private Lanes() {}
}
