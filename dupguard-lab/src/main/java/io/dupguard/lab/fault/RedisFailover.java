package io.dupguard.lab.fault;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.LabRedisSentinel;
import io.dupguard.lab.storm.Need;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.Workload;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * {@code redis-failover} / {@code redis-failover-kill}: the Redis strategies run against a
 * Sentinel-managed Redis the lab starts itself ({@link LabRedisSentinel}: master, two replicas,
 * three Sentinels), connecting through the Sentinels. At a seeded moment in the first half of the
 * run the master fails over:
 *
 * <ul>
 *   <li>{@code redis-failover}: an operator's {@code SENTINEL FAILOVER}, the master still up: the
 *       Sentinels promote the replica with the best offset at once — writes are not paused and the
 *       replica does not catch up first (Redis's own {@code FAILOVER} command, 6.2+, does both) —
 *       then the old master becomes its replica and its clients are disconnected.
 *   <li>{@code redis-failover-kill}: the master is killed (SIGKILL); the Sentinels find it down after
 *       1 s and promote a replica.
 * </ul>
 *
 * <p>Replication is asynchronous: a claim, lock or token the master acknowledged but had not yet
 * sent to the promoted replica is gone after the failover (the lock taken on the master,
 * lost in the failover, gives two holders). So every row is {@code durable: false} — duplicate
 * effects or exclusion violations are the honest result; fenced writes must still be refused — but
 * a strategy decided by a database row behind Redis ({@link
 * Workload#decidedByDatabaseBehindRedis}), which is {@code durable: true}.
 *
 * <p>{@code -acks} variants: every Redis store, lock, token and throttle is built with {@code
 * replicaAcks(1, 500 ms)}: a write counts only once a replica has acknowledged it ({@code WAIT}).
 * Still {@code durable: false}: {@code WAIT} does not make Redis strongly consistent. Sentinel
 * promotes the replica with the best offset, which has every write another replica acknowledged
 * unless that replica is gone too; but the old master keeps accepting writes until the Sentinels
 * reconfigure it, and the replica that acknowledged them may not be the one promoted.
 */
final class RedisFailover implements Fault {
    private final boolean kill;
    private final int replicaAcks;
    private LabRedisSentinel sentinel;

    RedisFailover(boolean kill, int replicaAcks) {
        this.kill = kill;
        this.replicaAcks = replicaAcks;
    }

    @Override
    public String name() {
        return (kill ? "redis-failover-kill" : "redis-failover") + (replicaAcks > 0 ? "-acks" : "");
    }

    @Override
    public Optional<String> unsupported(LabEnvironment env) {
        return Faults.unsupportedOwnRedis(env, "a Sentinel-managed Redis of its own");
    }

    @Override
    public boolean durable(LabEnvironment env) {
        return false;
    }

    /** A strategy whose database row behind Redis decides keeps its promise whatever Redis loses. */
    @Override
    public boolean durable(LabEnvironment env, Workload workload, Strategy strategy) {
        return durable(env) || workload.decidedByDatabaseBehindRedis(strategy);
    }

    @Override
    public boolean appliesTo(Strategy strategy) {
        return strategy.needs().contains(Need.REDIS);
    }

    @Override
    public boolean inAll() {
        return false;
    }

    @Override
    public AutoCloseable prepare(LabEnvironment env) throws Exception {
        return Faults.using(new LabRedisSentinel(), s -> env.useRedis(s.url(), replicaAcks), s -> sentinel = s);
    }

    @Override
    public void run(LabEnvironment env, long startNanos, long endNanos, SplittableRandom random, Active active)
            throws Exception {
        if (!Faults.waitForSeededMoment(startNanos, endNanos, random)) {
            return;
        }
        long from = System.nanoTime();
        if (kill) {
            sentinel.killMaster();
        } else {
            sentinel.failover();
        }
        active.between(from, System.nanoTime());
    }
}
