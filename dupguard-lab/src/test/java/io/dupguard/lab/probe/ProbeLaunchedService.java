package io.dupguard.lab.probe;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.concurrent.Executors;

/**
 * {@link ProbeIT}'s services in a process of their own, for the kill scenario (the probe launches
 * it with {@code --launch}, kills it with SIGKILL and launches it again): {@code java …
 * -Ddupguard.probe.it.suffix=SUFFIX ProbeLaunchedService PORT}, the suffix naming the parent's
 * tables. {@code /safe} is {@link ProbeIT#safe}; {@code /slow-answer} inserts its row at once, with
 * no look at the key, and answers 2 s later, so a kill in between leaves the effect without an
 * answer and the retry inserts again; {@code /health} answers 200 once PostgreSQL answers.
 */
public final class ProbeLaunchedService {
    private ProbeLaunchedService() {}

    public static void main(String[] args) throws Exception {
        HttpServer server = HttpServer.create(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(args[0])), 64);
        server.setExecutor(Executors.newFixedThreadPool(16));
        server.createContext("/safe", ex -> ProbeIT.handle(ex, ProbeIT::safe));
        server.createContext("/slow-answer", ex -> ProbeIT.handle(ex, ProbeLaunchedService::slowAnswer));
        server.createContext("/health", ex -> {
            int status = 200;
            try (Connection c = DriverManager.getConnection(ProbeIT.PG);
                    Statement s = c.createStatement()) {
                s.execute("select 1");
            } catch (java.sql.SQLException e) {
                status = 503;
            }
            byte[] body = (status == 200 ? "up" : "down").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(status, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.start();
    }

    static String[] slowAnswer(String key, String ref, String body) throws Exception {
        try (Connection c = DriverManager.getConnection(ProbeIT.PG);
                PreparedStatement ps = c.prepareStatement(
                        "insert into " + ProbeIT.NAIVE + " (request_key, ref, body) values (?, ?, ?)")) {
            ps.setString(1, key);
            ps.setString(2, ref);
            ps.setString(3, body);
            ps.executeUpdate();
        }
        Thread.sleep(2000); // the service's work after its commit: the kill lands in it
        return new String[] {"201", "{\"ref\":\"" + ref + "\"}"};
    }
}
