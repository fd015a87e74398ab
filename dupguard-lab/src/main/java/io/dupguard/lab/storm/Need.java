package io.dupguard.lab.storm;

/** A server a strategy cannot run without, beyond the database every workload uses. */
public enum Need {
    /** Redis, given with {@code --redis-url}. */
    REDIS("--redis-url"),
    /** Three or more independent Redis servers for Redlock, given with {@code --redlock-urls}. */
    REDLOCK("--redlock-urls"),
    /** ZooKeeper, given with {@code --zookeeper} (an address, or {@code embedded}). */
    ZOOKEEPER("--zookeeper"),
    /** A PostgreSQL streaming standby of the database, given with {@code --jdbc-replica-url}. */
    REPLICA("--jdbc-replica-url");

    private final String option;

    Need(String option) {
        this.option = option;
    }

    /** The command-line option that provides it. */
    public String option() {
        return option;
    }
}
