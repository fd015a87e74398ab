package io.dupguard.lab.fault;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.LabRedisServer;
import io.dupguard.lab.storm.Need;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.Workload;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * {@code redis-restart} / {@code redis-restart-aof}: the Redis strategies run against a {@code
 * redis-server} the lab starts itself on a free loopback port, which is killed (SIGKILL, a crash)
 * at a seeded moment in the first half of the run and started again at once on the same port.
 *
 * <ul>
 *   <li>{@code redis-restart}: no persistence. Every claim and result is forgotten: retries after
 *       the restart run the work again. Duplicate effects are the honest result here; the row is
 *       marked {@code durable: false} (a store-durability limit, not a dupguard failure).
 *   <li>{@code redis-restart-aof}: {@code appendonly yes}, {@code appendfsync always}: every
 *       acknowledged write is on disk before the reply, so the restarted server still has every
 *       claim and result, and dupguard keeps its promise ({@code durable: true}).
 * </ul>
 */
final class RedisRestart implements Fault {
    private final boolean persistent;

    RedisRestart(boolean persistent) {
        this.persistent = persistent;
    }

    @Override
    public String name() {
        return persistent ? "redis-restart-aof" : "redis-restart";
    }

    @Override
    public Optional<String> unsupported(LabEnvironment env) {
        return Faults.unsupportedOwnRedis(env, "a redis-server of its own");
    }

    @Override
    public boolean durable(LabEnvironment env) {
        return persistent;
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

    private LabRedisServer server;

    @Override
    public AutoCloseable prepare(LabEnvironment env) throws Exception {
        return Faults.using(new LabRedisServer(persistent), s -> env.useRedis(s.url()), s -> server = s);
    }

    @Override
    public void run(LabEnvironment env, long startNanos, long endNanos, SplittableRandom random, Active active)
            throws Exception {
        if (!Faults.waitForSeededMoment(startNanos, endNanos, random)) {
            return;
        }
        LabRedisServer s = server;
        long from = System.nanoTime();
        s.kill();
        s.start();
        active.between(from, System.nanoTime());
    }
}
