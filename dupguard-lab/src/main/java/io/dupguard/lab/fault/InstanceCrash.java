package io.dupguard.lab.fault;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.workload.LabIdempotency;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * {@code instance-crash}: a third of the clients are served by a second application instance with
 * its own connection pool, Redis and Redlock clients and ZooKeeper session ({@link
 * LabEnvironment#instance()}). At a seeded moment in the first half of the run the instance dies:
 * its database connections are aborted mid-statement, its Redis and Redlock connections dropped,
 * its ZooKeeper connection cut at its relay (the server expires the session), and its attempts stop where they
 * are, without completing or releasing anything. Its clients get an error and retry on the
 * surviving instance, which must take the dead instance's claims and locks over once their lease
 * ({@link LabIdempotency#LEASE}; ZooKeeper: the session timeout) has run out, and still make every
 * operation take effect once.
 *
 * <p>Runs the strategies whose workload says two instances can share them; durable unless the
 * workload says the strategy commits its effect apart from dupguard's record.
 */
final class InstanceCrash extends SecondInstanceFault {
    @Override
    public String name() {
        return "instance-crash";
    }

    @Override
    public Optional<String> unsupported(LabEnvironment env) {
        if (env.jdbcUrl().isEmpty()) {
            return Optional.of("a second application instance needs a database server both can reach; give --jdbc-url");
        }
        return Optional.empty();
    }

    @Override
    public void run(LabEnvironment env, long startNanos, long endNanos, SplittableRandom random, Active active) {
        if (!Faults.waitForSeededMoment(startNanos, endNanos, random)) {
            return;
        }
        long at = System.nanoTime();
        env.crashInstances();
        // shaded: from the crash until the dead instance's claims and locks may be taken over
        active.between(at, System.nanoTime() + LabIdempotency.LEASE.toNanos());
    }
}
