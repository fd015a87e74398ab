package io.dupguard.lab.fault;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.LabRedisPartition;
import io.dupguard.lab.storm.Need;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.Workload;
import java.time.Duration;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * {@code redis-partition}: the Redis strategies run against a {@code redis-server} of the lab's own
 * that their clients reach through a loopback relay ({@link LabRedisPartition}). At a seeded moment in
 * the first half of the run the relay cuts the network both ways for {@link #PARTITION} — longer than
 * the lab's 2 s lease, shorter than the clients' 5 s command timeout: nothing passes, no socket is
 * closed, commands and connects hang — then heals, and what was held arrives late, in order. The
 * server loses nothing, but leases run out on it meanwhile, and a holder's renewal and completion
 * arrive after its lease ended: a strategy that commits its effect apart from its record (the work
 * already done, the record lost with the lease) can run the work again, as under a pause of the
 * holder longer than its lease. So a row is {@code durable: true} only where a database row behind
 * Redis decides ({@link Workload#decidedByDatabaseBehindRedis}); the others are labelled with that
 * limit.
 */
final class RedisPartition implements Fault {
    static final Duration PARTITION = Duration.ofSeconds(3);

    private LabRedisPartition network;

    @Override
    public String name() {
        return "redis-partition";
    }

    @Override
    public Optional<String> unsupported(LabEnvironment env) {
        return Faults.unsupportedOwnRedis(env, "a redis-server of its own, behind a relay it cuts");
    }

    @Override
    public boolean durable(LabEnvironment env) {
        return false;
    }

    /** A strategy whose database row behind Redis decides keeps its promise whatever Redis does late. */
    @Override
    public boolean durable(LabEnvironment env, Workload workload, Strategy strategy) {
        return workload.decidedByDatabaseBehindRedis(strategy);
    }

    @Override
    public String limit() {
        return "a partition longer than the lease: the leases ran out on Redis while their holders were cut off,"
                + " and a strategy that commits its effect apart from its record can run the work again;"
                + " not counted as a dupguard failure";
    }

    /** Named only: a 3 s partition for every Redis strategy would lengthen {@code all} by that much. */
    @Override
    public boolean inAll() {
        return false;
    }

    @Override
    public boolean appliesTo(Strategy strategy) {
        return strategy.needs().contains(Need.REDIS);
    }

    @Override
    public AutoCloseable prepare(LabEnvironment env) throws Exception {
        return Faults.using(new LabRedisPartition(), p -> env.useRedis(p.url()), p -> network = p);
    }

    @Override
    public void run(LabEnvironment env, long startNanos, long endNanos, SplittableRandom random, Active active)
            throws Exception {
        if (!Faults.waitForSeededMoment(startNanos, endNanos, random)) {
            return;
        }
        LabRedisPartition p = network;
        long from = System.nanoTime();
        p.partition();
        try {
            Faults.waitUntil(from + PARTITION.toNanos());
        } finally {
            p.heal();
            active.between(from, System.nanoTime());
        }
    }
}
