package io.dupguard.lab.fault;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.env.LabPostgresPair;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code pg-failover-rejoin} / {@code pg-failover-second-primary} / {@code
 * pg-failover-second-primary-new-first}: {@code pg-failover} (an asynchronous {@link LabPostgresPair}:
 * 300 ms of WAL held back, the primary crashed, the standby promoted), then the old primary comes back
 * while the storm runs. The clients' URL lists both hosts with {@code targetServerType=primary} and
 * {@code hostRecheckSeconds=1} (the driver tries a host that refused it again after 1 s; 10 s by
 * default). Once the old primary is back and a new connection lands where the URL leads, the pool
 * replaces its connections (as it does at their maximum lifetime or after an error).
 *
 * <ul>
 *   <li>{@code pg-failover-rejoin}: the old primary is rewound with {@code pg_rewind} against the new
 *       primary and restarted as its standby ({@code standby.signal}, {@code primary_conninfo}). The
 *       driver skips it (it answers read-only), so the clients keep writing to the new primary. What
 *       the standby had not received when the primary crashed is lost as under {@code pg-failover}
 *       (asynchronous replication), and {@code pg_rewind} discards it from the old primary as well:
 *       {@code durable: false}.
 *   <li>{@code pg-failover-second-primary}: the old primary is restarted as it was, without a rewind:
 *       two servers accept writes (split brain). The clients' URL lists the old primary first, and the
 *       driver connects to the first host that answers as a primary — both answer {@code
 *       pg_is_in_recovery() = false}, so nothing a client or dupguard asks the server tells them apart.
 *       The writes go to the new primary after the failover and to the old one once it is back: claims,
 *       records and effects split between two databases, so a retry finds no claim and runs the work
 *       again, and what was acknowledged on the other database is missing (the lab's check reads the
 *       database the clients end on: a request charged only in the other counts as lost, one charged
 *       in both as charged once). dupguard cannot keep its
 *       promise here ({@code durable: false}): only fencing the old primary (the operator's failover
 *       tooling stops it, or keeps it from accepting connections, before the standby is promoted) or a
 *       check of the server's timeline against the newest one stops it.
 *   <li>{@code pg-failover-second-primary-new-first}: the same split brain, with a URL that lists the
 *       new primary first: the clients stay on the new primary and never write to the old one, so they
 *       see {@code pg-failover}'s loss only. Another client whose URL lists the old primary first still
 *       writes there — the order of hosts protects only the clients that have it ({@code durable: false}).
 * </ul>
 */
final class PgFailoverReturn implements Fault {
    /** How the old primary comes back. */
    enum Return {
        REJOIN("pg-failover-rejoin"),
        SECOND_PRIMARY("pg-failover-second-primary"),
        SECOND_PRIMARY_NEW_FIRST("pg-failover-second-primary-new-first");

        final String name;

        Return(String name) {
            this.name = name;
        }
    }

    /** How long the fault waits for a client connection to land where the URL leads once the old primary is back. */
    private static final Duration LANDING = Duration.ofSeconds(15);

    private final Return mode;
    private LabPostgresPair pair;
    private String url;

    PgFailoverReturn(Return mode) {
        this.mode = mode;
    }

    @Override
    public String name() {
        return mode.name;
    }

    @Override
    public Optional<String> unsupported(LabEnvironment env) {
        return PgFailover.withoutBinaries();
    }

    @Override
    public boolean durable(LabEnvironment env) {
        return false;
    }

    /**
     * The second-primary modes say what happened: the old primary came back as a second primary and
     * took writes the new one never saw. The rejoin's loss is the asynchronous standby's.
     */
    @Override
    public String limit() {
        return switch (mode) {
            case REJOIN ->
                "a durability limit: asynchronous replication, what the standby had not received when"
                        + " the primary crashed is lost, and pg_rewind discards it from the old primary too;"
                        + " not counted as a dupguard failure";
            case SECOND_PRIMARY ->
                "split brain: the old primary came back as a second primary and the clients, whose"
                        + " URL lists it first, wrote to it — claims, records and effects split between two databases,"
                        + " so retries ran the work again and answers acknowledged on the new primary are missing;"
                        + " only fencing the old primary prevents it; not counted as a dupguard failure";
            case SECOND_PRIMARY_NEW_FIRST ->
                "the failover's loss: the clients' URL lists the new primary first, so"
                        + " none wrote to the old one that came back as a second primary; what the asynchronous"
                        + " standby had not received when the primary crashed is lost; not counted as a dupguard failure";
        };
    }

    @Override
    public boolean inAll() {
        return false;
    }

    @Override
    public AutoCloseable prepare(LabEnvironment env) throws Exception {
        return Faults.using(
                LabPostgresPair.rewindable(),
                p -> {
                    url = p.url(mode != Return.SECOND_PRIMARY_NEW_FIRST);
                    return env.useDatabase(url);
                },
                p -> pair = p);
    }

    @Override
    public void run(LabEnvironment env, long startNanos, long endNanos, SplittableRandom random, Active active)
            throws Exception {
        OptionalLong from = PgFailover.failOver(pair, env, startNanos, endNanos, random);
        if (from.isEmpty()) {
            return;
        }
        if (mode == Return.REJOIN) {
            pair.rejoinAsStandby();
        } else {
            pair.restartAsPrimary();
        }
        // where a new connection through the URL lands: the old primary only once the driver's
        // hostRecheckSeconds since it refused connections has passed
        int expected = mode == Return.SECOND_PRIMARY ? pair.primaryPort() : pair.standbyPort();
        awaitLanding(expected);
        env.renewConnections();
        active.between(from.getAsLong(), System.nanoTime());
    }

    /** Waits until a new connection through the clients' URL reaches the server on {@code port}. */
    private void awaitLanding(int port) throws SQLException {
        long deadline = System.nanoTime() + LANDING.toNanos();
        while (true) {
            int reached = LabPostgresPair.serverPort(url);
            if (reached == port) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(name() + ": a connection through " + url + " still reaches port "
                        + reached + ", not " + port + ", after " + LANDING.toSeconds() + " s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }
}
