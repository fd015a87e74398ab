package io.dupguard.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.lock.Lease;
import io.dupguard.lock.LockOptions;
import io.dupguard.redis.RedisLockProvider;
import io.dupguard.retry.NewTask;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The standalone console ({@code dupguard console}) over HTTP on PostgreSQL and Redis: basic auth
 * with the generated password, CSRF on every POST, the JSON API a script uses, and the Redis locks.
 */
class ConsoleServerIT {
    static final String PG =
            System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    static final String REDIS = System.getProperty("dupguard.redis.url", "redis://127.0.0.1:6379");

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aScriptDoesWhatThePageDoesWithThePasswordAndTheCsrfToken() throws Exception {
        // A database of its own: the shared one holds every other test's keys, more than one page scans.
        RedisURI uri = RedisURI.create(REDIS);
        uri.setDatabase(11);
        RedisClient client = RedisClient.create(uri);
        String prefix = "console-it:" + System.nanoTime() + ":";
        try (ConsoleFixture f = new ConsoleFixture(PG);
                RedisLockProvider redisLocks =
                        RedisLockProvider.builder(client).keyPrefix(prefix).build()) {
            Console console = Console.builder(f.ds)
                    .tables(Map.of(
                            "retry", f.prefix + "retry",
                            "idempotency", f.prefix + "idem",
                            "locks", f.prefix + "locks",
                            "audit", f.prefix + "audit"))
                    .redisLocks(client.connect(), prefix)
                    .build();
            try (ConsoleServer server = ConsoleServer.start(console, 0, true)) {
                String auth = "Basic "
                        + Base64.getEncoder()
                                .encodeToString(("admin:" + server.password()).getBytes(StandardCharsets.UTF_8));
                URI base = server.uri();
                assertThat(send(HttpRequest.newBuilder(base).GET().build()).statusCode())
                        .isEqualTo(401);
                assertThat(send(HttpRequest.newBuilder(base)
                                        .header("Authorization", "Basic YWRtaW46eA==")
                                        .build())
                                .statusCode())
                        .isEqualTo(401);
                HttpResponse<String> page = get(base, auth);
                assertThat(page.statusCode()).isEqualTo(200);
                assertThat(page.body()).contains("Overview", "admin · operator").doesNotContain("<script");
                for (URI u : new URI[] {base, base.resolve("api/overview")}) {
                    HttpResponse<String> head = send(HttpRequest.newBuilder(u)
                            .header("Authorization", auth)
                            .method("HEAD", HttpRequest.BodyPublishers.noBody())
                            .build());
                    assertThat(head.statusCode()).as("HEAD " + u).isEqualTo(200);
                    assertThat(head.body()).isEmpty();
                    assertThat(head.headers().firstValue("Content-Type")).isPresent();
                }
                HttpResponse<String> badLimit = get(base.resolve("api/tasks?limit=0"), auth);
                assertThat(badLimit.statusCode()).isEqualTo(400);
                assertThat(badLimit.body()).contains("limit must be 1 to 500");

                long id = f.retries
                        .recordFailure(NewTask.of("script.x", "{}", null), null, "declined")
                        .id();
                String task = get(base.resolve("api/tasks/" + id), auth).body();
                assertThat(task).contains("\"state\":\"BLOCKED\"");
                Matcher token = Pattern.compile("\"token\":\"([^\"]+)\"")
                        .matcher(get(base.resolve("api/csrf"), auth).body());
                assertThat(token.find()).isTrue();

                Matcher version = Pattern.compile("\"version\":\"(\\d+)\"").matcher(task);
                assertThat(version.find()).as(task).isTrue();
                Map<String, String> form = Map.of("reason", "scripted retry", "version", version.group(1));
                assertThat(post(base.resolve("api/tasks/" + id + "/unblock"), auth, form, null)
                                .statusCode())
                        .isEqualTo(403);
                assertThat(post(base.resolve("api/tasks/" + id + "/unblock"), auth, form, "forged")
                                .statusCode())
                        .isEqualTo(403);
                HttpResponse<String> ok =
                        post(base.resolve("api/tasks/" + id + "/unblock"), auth, form, token.group(1));
                assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
                HttpResponse<String> again =
                        post(base.resolve("api/tasks/" + id + "/unblock"), auth, form, token.group(1));
                assertThat(again.statusCode()).isEqualTo(409);
                assertThat(again.body()).contains("is PENDING", "nothing changed");

                Lease lease = redisLocks.acquire("invoice-run", LockOptions.ofDefaults());
                String locks = get(base.resolve("api/locks"), auth).body();
                assertThat(locks)
                        .contains(
                                "\"provider\":\"redis\"",
                                "\"name\":\"invoice-run\"",
                                "\"fence\":" + lease.fencingToken());
                Matcher owner = Pattern.compile("\"owner\":\"([^\"]+)\"").matcher(locks);
                assertThat(owner.find()).isTrue();
                HttpResponse<String> released = post(
                        base.resolve("api/locks/release"),
                        auth,
                        Map.of(
                                "provider",
                                "redis",
                                "name",
                                "invoice-run",
                                "owner",
                                owner.group(1),
                                "reason",
                                "host gone"),
                        token.group(1));
                assertThat(released.statusCode()).as(released.body()).isEqualTo(200);
                assertThat(lease.isHeld()).isFalse();
                assertThat(get(base.resolve("api/audit"), auth).body())
                        .contains("\"action\":\"release-lock\"", "\"action\":\"unblock\"", "host gone");
                lease.close();
            }
        } finally {
            client.shutdown();
        }
    }

    private HttpResponse<String> send(HttpRequest r) throws Exception {
        return http.send(r, HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(URI uri, String auth) throws Exception {
        return send(HttpRequest.newBuilder(uri).header("Authorization", auth).build());
    }

    private HttpResponse<String> post(URI uri, String auth, Map<String, String> form, String csrf) throws Exception {
        String body = form.entrySet().stream()
                .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        HttpRequest.Builder b = HttpRequest.newBuilder(uri)
                .header("Authorization", auth)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (csrf != null) {
            b.header("X-CSRF-TOKEN", csrf);
        }
        return send(b.build());
    }
}
