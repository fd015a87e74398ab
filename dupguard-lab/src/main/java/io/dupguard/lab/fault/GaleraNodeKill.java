package io.dupguard.lab.fault;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.Workload;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code galera-node-kill}: a third of the clients are served by a second application instance
 * connected to another node of a Galera cluster ({@code --jdbc-url-2}, whose first host is that
 * node). At a seeded moment in the first half of the run the lab kills that node's {@code mariadbd}
 * with SIGKILL — the instance lives on — and starts it again with the same command line at the end
 * of the run, waiting until it has rejoined the cluster ({@code Synced}, at most {@value
 * #REJOIN_SECONDS} s), so the cluster is whole for whatever runs next. The instance's calls in
 * flight on the node fail; with a failover URL ({@code jdbc:mariadb:sequential://node2,node1/…})
 * its next connections reach a surviving node. The cluster loses no committed row, and what the
 * killed node had not committed never was — but until the survivors declare the node dead, every
 * write in the cluster waits, longer than the lab's leases: so the promise is required ({@code
 * durable}) only of strategies no lease guards ({@link Workload#survivesStallsPastLeases}); the
 * others are shown as the limit they meet.
 *
 * <p>The node must run on this machine (its pid file is read, its process killed and started as
 * the lab's user may), as the cluster of {@code scripts/services} does.
 */
final class GaleraNodeKill extends SecondInstanceFault {
    static final int REJOIN_SECONDS = 90;
    private static final Pattern FIRST_HOST = Pattern.compile("^jdbc:mariadb:(?:[a-z]+:)?//([^:/,]+):(\\d+)");

    @Override
    public String name() {
        return "galera-node-kill";
    }

    @Override
    public Optional<String> unsupported(LabEnvironment env) {
        Optional<String> url = env.instanceUrl();
        if (url.isEmpty() || !FIRST_HOST.matcher(url.get()).find()) {
            return Optional.of("give --jdbc-url-2, a jdbc:mariadb URL of another Galera node of --jdbc-url for the"
                    + " second instance");
        }
        try {
            pid(adminUrl(url.get()));
        } catch (SQLException | IOException | RuntimeException e) {
            return Optional.of("cannot find the --jdbc-url-2 node's process on this machine: " + e.getMessage());
        }
        return Optional.empty();
    }

    /**
     * The cluster stalls every write until it has declared the node dead (about {@code
     * evs.suspect_timeout} plus a check period: 4 s with the 3 s of {@code scripts/services}),
     * longer than the lab's 2 s leases: only strategies no lease guards can keep their promise.
     */
    @Override
    public boolean durable(LabEnvironment env, Workload workload, Strategy strategy) {
        return workload.survivesStallsPastLeases(strategy);
    }

    /** Only when named: it needs a Galera cluster on this machine. */
    @Override
    public boolean inAll() {
        return false;
    }

    @Override
    public void run(LabEnvironment env, long startNanos, long endNanos, SplittableRandom random, Active active)
            throws Exception {
        if (!Faults.waitForSeededMoment(startNanos, endNanos, random)) {
            return;
        }
        String node = adminUrl(env.instanceUrl().orElseThrow());
        long pid = pid(node);
        ProcessHandle process = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no process " + pid));
        List<String> command = commandLine(pid);
        long killed = System.nanoTime();
        process.destroyForcibly();
        process.onExit().get(30, TimeUnit.SECONDS);
        try {
            Faults.waitUntil(endNanos);
        } finally {
            restart(command, node);
            active.between(killed, System.nanoTime());
        }
    }

    /** root over TCP on the URL's first host, as {@code scripts/services} lets it log in. */
    static String adminUrl(String url) {
        Matcher m = FIRST_HOST.matcher(url);
        if (!m.find()) {
            throw new IllegalArgumentException("not a jdbc:mariadb URL: " + url);
        }
        return "jdbc:mariadb://" + m.group(1) + ":" + m.group(2) + "/?user=root&connectTimeout=2000";
    }

    private static long pid(String node) throws SQLException, IOException {
        try (Connection c = DriverManager.getConnection(node);
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT @@wsrep_on, @@pid_file")) {
            rs.next();
            if (!rs.getBoolean(1)) {
                throw new IllegalStateException("not a Galera node (wsrep_on is OFF)");
            }
            return Long.parseLong(Files.readString(Path.of(rs.getString(2))).trim());
        }
    }

    /** The node's command line, to start it again; never one that bootstraps a new cluster. */
    private static List<String> commandLine(long pid) throws IOException {
        byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
        List<String> args = new ArrayList<>();
        for (String arg : new String(raw, StandardCharsets.UTF_8).split("\0")) {
            if (!arg.isEmpty() && !arg.equals("--wsrep-new-cluster")) {
                args.add(arg);
            }
        }
        return args;
    }

    private static void restart(List<String> command, String node) throws IOException, InterruptedException {
        new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(REJOIN_SECONDS);
        while (!synced(node)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "the killed Galera node did not rejoin within " + REJOIN_SECONDS + " s: " + node);
            }
            Thread.sleep(250);
        }
    }

    private static boolean synced(String node) {
        try (Connection c = DriverManager.getConnection(node);
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT variable_value FROM information_schema.global_status"
                        + " WHERE variable_name = 'wsrep_local_state_comment'")) {
            return rs.next() && rs.getString(1).equals("Synced");
        } catch (SQLException notYet) {
            return false;
        }
    }
}
