package io.dupguard.lab.env;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * A PostgreSQL primary and its streaming hot standby that the lab starts itself, on free loopback
 * ports, for the failover faults — never the shared servers of {@code scripts/services}, which
 * other tests use. As {@code scripts/services} makes its 5442/5443 pair:
 *
 * <ol>
 *   <li>{@code initdb} and database {@code test} once per process (a template, copied for each pair);
 *   <li>the primary started with {@code pg_ctl};
 *   <li>{@code pg_basebackup -R -X stream --checkpoint=fast}: the standby, started, streaming;
 *   <li>{@link #failover(Duration)}: the primary's WAL sender held back for a moment (SIGSTOP), then
 *       killed, the primary stopped as a crash ({@code pg_ctl stop -m immediate}: no shutdown checkpoint,
 *       nothing more sent to the standby), the standby promoted ({@code pg_ctl promote -w});
 *   <li>for the faults where the old primary comes back: {@link #rejoinAsStandby()} ({@code
 *       pg_rewind} against the new primary, restarted as its standby) or {@link #restartAsPrimary()}
 *       (restarted as it was: a second primary).
 * </ol>
 *
 * <p>A pair built {@link #rewindable()} is created with what {@code pg_rewind} requires: {@code
 * wal_log_hints = on} and {@code full_page_writes} on (of the old primary and its source), and {@code
 * wal_keep_size = 1GB} (it reads the old primary's WAL back to the last checkpoint before the fork);
 * the other pairs, benchmarks' included, are created without them.
 *
 * <p>With {@code synchronous}, the primary gets {@code synchronous_standby_names = '*'} (after the
 * base backup: the standby, once promoted, has none) and {@code synchronous_commit = on}: a commit
 * returns only once the standby has flushed it. Without, the
 * standby is asynchronous and may miss the last acknowledged commits; {@link #synchronousStandby}
 * changes it on a running pair. {@code fsync} is off on both unless asked for (test data; the lab
 * crashes servers, not the machine, so the OS cache survives), and then the data directories are in
 * memory ({@code /dev/shm}) where the machine has it. Run as root, every
 * command runs as the {@code postgres} OS user, which PostgreSQL requires.
 */
public final class LabPostgresPair implements AutoCloseable {
    private static final long WAIT_SECONDS = 60;
    private static Path template; // initdb's output, copied for every pair; guarded by the class

    private final Path base;
    private final int primaryPort;
    private final int standbyPort;
    private final boolean synchronous;
    private final boolean fsync;
    private final boolean rewindable;

    /**
     * Starts a primary and its standby, {@code fsync} off, and waits until the standby streams (as a
     * synchronous standby, with {@code synchronous}).
     *
     * @throws IOException if a PostgreSQL command fails (its log is named)
     */
    public LabPostgresPair(boolean synchronous) throws IOException, SQLException {
        this(synchronous, false);
    }

    /**
     * As {@link #LabPostgresPair(boolean)}; with {@code fsync}, both servers flush their WAL to disk as
     * a production server does ({@code fsync} and {@code full_page_writes} on), which a benchmark of
     * commit settings needs: without it, {@code synchronous_commit = local} costs no disk flush.
     */
    public LabPostgresPair(boolean synchronous, boolean fsync) throws IOException, SQLException {
        this(synchronous, fsync, false);
    }

    /**
     * An asynchronous pair, {@code fsync} off, whose old primary can be rewound with {@code pg_rewind}
     * after a {@link #failover(Duration)} ({@code full_page_writes} on).
     */
    public static LabPostgresPair rewindable() throws IOException, SQLException {
        return new LabPostgresPair(false, false, true);
    }

    private LabPostgresPair(boolean synchronous, boolean fsync, boolean rewindable) throws IOException, SQLException {
        this.synchronous = synchronous;
        this.fsync = fsync;
        this.rewindable = rewindable;
        this.primaryPort = freePort();
        this.standbyPort = freePort();
        this.base = ownedTempDirectory("dupguard-lab-pg", !fsync);
        try {
            run(
                    List.of(
                            "cp",
                            "-a",
                            template().toString(),
                            base.resolve("primary").toString()),
                    "copy");
            if (rewindable) {
                // pg_rewind needs hint-bit changes WAL-logged on the server it rewinds, and reads its
                // WAL back to the checkpoint before the timelines forked, which its own crash
                // recovery's checkpoints would otherwise remove
                Files.writeString(
                        base.resolve("primary").resolve("postgresql.conf"),
                        "\nwal_log_hints = on\nwal_keep_size = 1GB\n",
                        StandardOpenOption.APPEND);
            }
            start("primary", primaryPort);
            run(
                    List.of(
                            bin("pg_basebackup"),
                            "-h",
                            "127.0.0.1",
                            "-p",
                            Integer.toString(primaryPort),
                            "-U",
                            "postgres",
                            "-D",
                            base.resolve("standby").toString(),
                            "-R",
                            "-X",
                            "stream",
                            "--checkpoint=fast",
                            "--no-sync"),
                    "basebackup");
            start("standby", standbyPort);
            if (synchronous) {
                // after the base backup, so that the standby, once promoted, waits for no standby of its own
                try (Connection c = DriverManager.getConnection(adminUrl(primaryPort))) {
                    c.createStatement().execute("ALTER SYSTEM SET synchronous_standby_names = '*'");
                    c.createStatement().execute("SELECT pg_reload_conf()");
                }
            }
            awaitStreaming(primaryPort, synchronous);
        } catch (IOException | SQLException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Whether the PostgreSQL server binaries (and, as root, {@code runuser}) can be found. */
    public static boolean available() {
        return binDir().isPresent();
    }

    /**
     * The URL clients use: both hosts, {@code targetServerType=primary}, so the driver connects to
     * whichever is the primary and finds the promoted standby when the pool reconnects.
     */
    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + primaryPort + ",127.0.0.1:" + standbyPort
                + "/test?user=postgres&targetServerType=primary&connectTimeout=5";
    }

    /**
     * A client URL for the faults where the old primary comes back: both hosts, the old primary
     * first ({@code oldPrimaryFirst}) or the standby (the new primary after a failover) first, {@code
     * targetServerType=primary}, and {@code hostRecheckSeconds=1}: the driver remembers a host that
     * refused a connection for that long before trying it again (10 s by default).
     */
    public String url(boolean oldPrimaryFirst) {
        int first = oldPrimaryFirst ? primaryPort : standbyPort;
        int second = oldPrimaryFirst ? standbyPort : primaryPort;
        return "jdbc:postgresql://127.0.0.1:" + first + ",127.0.0.1:" + second
                + "/test?user=postgres&targetServerType=primary&connectTimeout=5&hostRecheckSeconds=1";
    }

    /** The port of the server a connection through {@code url} reaches ({@code inet_server_port()}). */
    public static int serverPort(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
                ResultSet rs = c.createStatement().executeQuery("SELECT inet_server_port()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** The old primary's port; the old standby's is {@link #standbyPort()}. */
    public int primaryPort() {
        return primaryPort;
    }

    /** The old standby's port: the primary's after a {@link #failover(Duration)}. */
    public int standbyPort() {
        return standbyPort;
    }

    /** The primary alone, for administration ({@code ALTER SYSTEM}, {@code pg_stat_replication}). */
    public String primaryAdminUrl() {
        return adminUrl(primaryPort);
    }

    /**
     * Names the standby in the primary's {@code synchronous_standby_names} ({@code '*'}) or names
     * none ({@code ''}: the standby is asynchronous), reloads the configuration and waits until the
     * standby's {@code sync_state} says so. What a commit then waits for is each session's {@code
     * synchronous_commit}.
     */
    public void synchronousStandby(boolean named) throws IOException, SQLException {
        try (Connection c = DriverManager.getConnection(adminUrl(primaryPort))) {
            c.createStatement().execute("ALTER SYSTEM SET synchronous_standby_names = '" + (named ? "*" : "") + "'");
            c.createStatement().execute("SELECT pg_reload_conf()");
        }
        awaitStreaming(primaryPort, named);
    }

    /**
     * Fails the primary over to the standby. First the primary stops sending WAL for {@code lag}
     * (its WAL sender is stopped with SIGSTOP, as a slow network would hold WAL back): commits made
     * meanwhile stay on the primary — an asynchronous primary acknowledges them, a synchronous one
     * keeps them waiting for the standby. Then the WAL sender is killed with what it had not sent,
     * the primary stops as a crash would, and the standby is promoted and answers as the new primary.
     */
    public void failover(Duration lag) throws IOException, SQLException {
        String sender;
        try (Connection c = DriverManager.getConnection(adminUrl(primaryPort));
                ResultSet rs = c.createStatement().executeQuery("SELECT pid FROM pg_stat_replication")) {
            if (!rs.next()) {
                throw new IOException("the primary on port " + primaryPort + " has no WAL sender");
            }
            sender = Long.toString(rs.getLong(1));
        }
        run(List.of("kill", "-STOP", sender), "sender-stop");
        LockSupport.parkNanos(lag.toNanos());
        run(List.of("kill", "-KILL", sender), "sender-kill");
        run(List.of(bin("pg_ctl"), "-D", base.resolve("primary").toString(), "-m", "immediate", "stop"), "stop");
        run(
                List.of(
                        bin("pg_ctl"),
                        "-D",
                        base.resolve("standby").toString(),
                        "-w",
                        "-t",
                        Long.toString(WAIT_SECONDS),
                        "promote"),
                "promote");
    }

    /**
     * After {@link #failover(Duration)}: the old primary, stopped as a crash, is rewound against the
     * new primary and restarted as its asynchronous standby; returns once it streams. {@code pg_rewind}
     * first runs the old primary's crash recovery (single-user mode), then copies back the blocks
     * changed since the timelines forked — discarding the commits the new primary never received —
     * and writes {@code standby.signal} and a {@code primary_conninfo} naming the new primary ({@code -R}).
     * A {@code CHECKPOINT} on the new primary first: PostgreSQL 15's {@code pg_rewind} reads the
     * source's timeline from its control file, which the promotion updates only at a checkpoint.
     */
    public void rejoinAsStandby() throws IOException, SQLException {
        try (Connection c = DriverManager.getConnection(adminUrl(standbyPort))) {
            c.createStatement().execute("CHECKPOINT");
        }
        run(
                List.of(
                        bin("pg_rewind"),
                        "-D",
                        base.resolve("primary").toString(),
                        "--source-server=host=127.0.0.1 port=" + standbyPort + " user=postgres dbname=postgres",
                        "-R",
                        "--no-sync"),
                "rewind");
        start("primary", primaryPort);
        awaitStreaming(standbyPort, false);
    }

    /**
     * After {@link #failover(Duration)}: the old primary is started again as it was — crash recovery,
     * then a primary on its old timeline, with the commits the standby never received — beside the
     * promoted standby: two servers that accept writes, both answering {@code pg_is_in_recovery() =
     * false}. This is the split brain an operator's fencing prevents.
     */
    public void restartAsPrimary() throws IOException {
        start("primary", primaryPort);
    }

    @Override
    public void close() {
        for (String node : List.of("primary", "standby")) {
            if (Files.exists(base.resolve(node).resolve("postmaster.pid"))) {
                try {
                    run(List.of(bin("pg_ctl"), "-D", base.resolve(node).toString(), "-m", "immediate", "stop"), "stop");
                } catch (IOException e) {
                    // already stopped (the failed-over primary)
                }
            }
        }
        delete(base);
    }

    private void start(String node, int port) throws IOException {
        start(
                base.resolve(node),
                port,
                fsync,
                fsync || rewindable,
                base.resolve(node + ".log"),
                base.resolve(node + ".out"));
    }

    private static void start(Path data, int port, boolean fsync, boolean fullPageWrites, Path log, Path out)
            throws IOException {
        String options = "-p " + port + " -k " + data.getParent() + " -c listen_addresses=127.0.0.1"
                + (fsync ? "" : " -c fsync=off") + (fullPageWrites ? "" : " -c full_page_writes=off")
                + " -c shared_buffers=16MB -c max_connections=60 -c synchronous_commit=on";
        run(
                List.of(
                        bin("pg_ctl"),
                        "-D",
                        data.toString(),
                        "-l",
                        log.toString(),
                        "-w",
                        "-t",
                        Long.toString(WAIT_SECONDS),
                        "-o",
                        options,
                        "start"),
                out);
    }

    /** Waits until the primary on {@code port} has one standby streaming, synchronous or not. */
    private void awaitStreaming(int port, boolean sync) throws SQLException, IOException {
        String sql = "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"
                + (sync ? " AND sync_state = 'sync'" : " AND sync_state = 'async'");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        try (Connection c = DriverManager.getConnection(adminUrl(port));
                PreparedStatement ps = c.prepareStatement(sql)) {
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) == 1) {
                        return;
                    }
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("no standby of the primary on port " + port + " streams within "
                            + WAIT_SECONDS + " s; see the logs in " + base);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        }
    }

    private static String adminUrl(int port) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    private static synchronized Path template() throws IOException {
        if (template == null) {
            Path dir = ownedTempDirectory("dupguard-lab-pg-template", true);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
            run(
                    List.of(
                            bin("initdb"),
                            "-D",
                            dir.resolve("data").toString(),
                            "-U",
                            "postgres",
                            "--auth=trust",
                            "--no-sync"),
                    dir.resolve("initdb.log"));
            Path data = dir.resolve("data");
            int port = freePort();
            start(data, port, false, false, dir.resolve("template.log"), dir.resolve("start.out"));
            try (Connection c = DriverManager.getConnection(adminUrl(port))) {
                c.createStatement().execute("CREATE DATABASE test");
            } catch (SQLException e) {
                throw new IOException("cannot create database test in " + data + ": " + e.getMessage(), e);
            } finally {
                run(List.of(bin("pg_ctl"), "-D", data.toString(), "-m", "fast", "-w", "stop"), dir.resolve("stop.out"));
            }
            template = data;
        }
        return template;
    }

    private void run(List<String> command, String what) throws IOException {
        run(command, base.resolve(what + ".out"));
    }

    /** Runs {@code command} (as the {@code postgres} user when root), its output to {@code log}. */
    private static void run(List<String> command, Path log) throws IOException {
        List<String> full = new ArrayList<>();
        if (root()) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        Process p = new ProcessBuilder(full)
                .directory(new File("/")) // postgres may not be allowed into the current directory
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            if (!p.waitFor(WAIT_SECONDS + 10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish; see " + log);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + "): "
                    + Files.readString(log).strip());
        }
    }

    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static String bin(String name) {
        return binDir().orElseThrow().resolve(name).toString();
    }

    /** The newest installed server's {@code bin} (Debian's layout), else the directory of {@code initdb} on the PATH. */
    private static Optional<Path> binDir() {
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                Optional<Path> newest = versions.map(v -> v.resolve("bin"))
                        .filter(b -> Files.isExecutable(b.resolve("initdb")))
                        .max(Comparator.comparingInt(b -> version(b.getParent())));
                if (newest.isPresent()) {
                    return newest;
                }
            } catch (IOException e) {
                // fall through to the PATH
            }
        }
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, "initdb"))) {
                return Optional.of(Path.of(d));
            }
        }
        return Optional.empty();
    }

    private static int version(Path dir) {
        try {
            return Integer.parseInt(dir.getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * A new directory owned by {@code postgres}; with {@code inMemory}, under {@code /dev/shm} where
     * it exists (a pair's 100 MB copied and streamed there in a fraction of a second instead of
     * seconds on a busy disk: nothing there is flushed, which only a pair without {@code fsync} may
     * accept), else in the temporary directory.
     */
    private static Path ownedTempDirectory(String prefix, boolean inMemory) throws IOException {
        Path shm = Path.of("/dev/shm");
        Path dir = inMemory && Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, prefix)
                : Files.createTempDirectory(prefix);
        if (root()) {
            UserPrincipal postgres =
                    dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(dir, postgres);
        }
        return dir;
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a temporary directory: left for the OS to clean
        }
    }
}
