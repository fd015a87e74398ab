package io.dupguard.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The console served by the JDK's HTTP server on loopback, for teams without Spring Boot ({@code
 * dupguard console}). One user, {@code admin}, with a password generated at start (HTTP basic); it
 * has the operator role unless the server is read-only. CSRF: every form carries a token generated
 * at start, and a POST must return it (field {@code _csrf} or header {@code X-CSRF-TOKEN}) and may
 * not come from another origin.
 */
public final class ConsoleServer implements AutoCloseable {
    /** The one user's name. */
    public static final String USER = "admin";

    private static final int MAX_FORM = 1 << 20;

    private final HttpServer server;
    private final ExecutorService threads;
    private final Console console;
    private final ConsoleHandler handler;
    private final String password;
    private final String csrf;
    private final boolean operator;
    private final String base;

    private ConsoleServer(Console console, int port, String base, boolean operator) throws IOException {
        this.console = console;
        this.handler = new ConsoleHandler(console);
        this.password = token(18);
        this.csrf = token(24);
        this.operator = operator;
        this.base = base;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        this.threads = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "dupguard-console-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(threads);
        server.createContext(base, this::serve);
        server.createContext("/", ex -> {
            try (ex) {
                ex.getResponseHeaders().set("Location", base + "/");
                ex.sendResponseHeaders(302, -1);
            }
        });
        server.start();
    }

    /**
     * Serves {@code console} on 127.0.0.1.
     *
     * @param console the console; not null, closed with the server
     * @param port the port, or 0 for any free one
     * @param operator whether {@code admin} may act (false: a read-only console)
     * @return the running server
     * @throws IOException if the port cannot be bound
     */
    public static ConsoleServer start(Console console, int port, boolean operator) throws IOException {
        return new ConsoleServer(Objects.requireNonNull(console, "console"), port, "/dupguard", operator);
    }

    /**
     * The console's address.
     *
     * @return e.g. {@code http://127.0.0.1:8077/dupguard/}
     */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + base + "/");
    }

    /**
     * The generated password of {@link #USER}; show it once.
     *
     * @return the password
     */
    public String password() {
        return password;
    }

    private void serve(HttpExchange ex) throws IOException {
        try (ex) {
            if (!authenticated(ex)) {
                ex.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"dupguard console\", charset=\"UTF-8\"");
                send(ex, new ConsoleResponse(401, ConsoleResponse.HTML, "log in as " + USER));
                return;
            }
            Map<String, String> params = new HashMap<>();
            parse(ex.getRequestURI().getRawQuery(), params);
            boolean post = "POST".equals(ex.getRequestMethod());
            if (post) {
                try (InputStream in = ex.getRequestBody()) {
                    byte[] body = in.readNBytes(MAX_FORM + 1);
                    if (body.length > MAX_FORM) {
                        send(ex, new ConsoleResponse(413, ConsoleResponse.HTML, "form too large"));
                        return;
                    }
                    parse(new String(body, StandardCharsets.UTF_8), params);
                }
            }
            String path = ex.getRequestURI().getPath().substring(base.length());
            if (!path.isEmpty() && !path.startsWith("/")) {
                send(ex, new ConsoleResponse(404, ConsoleResponse.HTML, "not found"));
                return;
            }
            ConsoleRequest r = new ConsoleRequest(
                    ex.getRequestMethod(),
                    path,
                    params,
                    new Actor(USER, operator),
                    new ConsoleRequest.Csrf("_csrf", csrf, post && csrfValid(ex, params)),
                    base);
            ConsoleResponse resp = handler.handle(r);
            send(ex, resp);
        } catch (RuntimeException e) {
            send(ex, new ConsoleResponse(500, ConsoleResponse.HTML, "console error: " + Html.esc(e.getMessage())));
        }
    }

    private boolean authenticated(HttpExchange ex) {
        String h = ex.getRequestHeaders().getFirst("Authorization");
        if (h == null || !h.startsWith("Basic ")) {
            return false;
        }
        byte[] given;
        try {
            given = Base64.getDecoder().decode(h.substring(6).strip());
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(given, (USER + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private boolean csrfValid(HttpExchange ex, Map<String, String> params) {
        String origin = ex.getRequestHeaders().getFirst("Origin");
        if (origin != null && !origin.equals("http://" + ex.getRequestHeaders().getFirst("Host"))) {
            return false;
        }
        String given = params.getOrDefault("_csrf", ex.getRequestHeaders().getFirst("X-CSRF-TOKEN"));
        return given != null
                && MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8), csrf.getBytes(StandardCharsets.UTF_8));
    }

    private static void parse(String raw, Map<String, String> into) {
        if (raw == null || raw.isEmpty()) {
            return;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            into.putIfAbsent(k, v);
        }
    }

    private static void send(HttpExchange ex, ConsoleResponse r) throws IOException {
        byte[] body = r.body().getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", r.contentType());
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        ex.getResponseHeaders().set("X-Frame-Options", "DENY");
        ex.getResponseHeaders()
                .set(
                        "Content-Security-Policy",
                        "default-src 'none'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'");
        // A HEAD answer has the GET's headers and no body: the server refuses bytes written after them.
        boolean head = "HEAD".equals(ex.getRequestMethod());
        ex.sendResponseHeaders(r.status(), head || body.length == 0 ? -1 : body.length);
        if (!head && body.length > 0) {
            ex.getResponseBody().write(body);
        }
    }

    private static String token(int bytes) {
        byte[] b = new byte[bytes];
        new SecureRandom().nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** Stops serving and closes the console. */
    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
        console.close();
    }
}
