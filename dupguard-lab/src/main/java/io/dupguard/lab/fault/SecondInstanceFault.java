package io.dupguard.lab.fault;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.Workload;
import java.util.Optional;

/**
 * A fault that strikes the second application instance ({@link LabEnvironment#instance()}) or what
 * it stands on: it runs the strategies whose workload says two instances can share them, durable
 * unless the workload says the strategy commits its effect apart from dupguard's record.
 */
abstract class SecondInstanceFault implements Fault {
    @Override
    public boolean durable(LabEnvironment env) {
        return true;
    }

    @Override
    public boolean durable(LabEnvironment env, Workload workload, Strategy strategy) {
        return workload.effectCommitsWithRecord(strategy);
    }

    /**
     * The strategies whose workload says two instances can share them: the second instance has its
     * own pool, Redis client, Redlock client and ZooKeeper session, so it can die alone.
     */
    @Override
    public boolean appliesTo(Workload workload, Strategy strategy) {
        return workload.sharedByInstances(strategy);
    }

    @Override
    public Optional<String> skipReason(Workload workload, Strategy strategy) {
        return workload.sharedByInstances(strategy)
                ? Optional.empty()
                : Optional.of(workload.notSharedBecause(strategy));
    }

    @Override
    public boolean needsSecondInstance() {
        return true;
    }
}
