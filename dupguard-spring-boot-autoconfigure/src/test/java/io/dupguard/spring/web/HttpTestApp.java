package io.dupguard.spring.web;

import java.net.URI;
import java.security.Principal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/** A small payments API behind Spring Security (HTTP basic: alice/a, bob/b) for the filter's tests. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({HttpTestApp.Charges.class, HttpTestApp.Ledger.class})
public class HttpTestApp {
    /** A locked operation whose lease the actuator endpoint shows while it runs. */
    public static class Ledger {
        final java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);

        public java.util.concurrent.CountDownLatch entered() {
            return entered;
        }

        public void release() {
            release.countDown();
        }

        @io.dupguard.spring.annotation.DistributedLock(name = "'ledger:' + #account")
        public long settle(String account) throws InterruptedException {
            entered.countDown();
            release.await(30, java.util.concurrent.TimeUnit.SECONDS);
            return io.dupguard.spring.annotation.DistributedLocks.currentLease().fencingToken();
        }
    }

    static volatile String table = "charges";

    /** Creates the charges table {@code name} and makes it the one the controllers write. */
    static void createCharges(JdbcTemplate jdbc, String name) {
        jdbc.execute("create table " + name
                + " (id bigserial primary key, principal text not null, client_key text not null, amount text)");
    }

    @Bean
    SecurityFilterChain api(HttpSecurity http) throws Exception {
        return http.authorizeHttpRequests(a -> a.anyRequest().authenticated())
                .httpBasic(Customizer.withDefaults())
                .csrf(AbstractHttpConfigurer::disable)
                .build();
    }

    @Bean
    UserDetailsService users() {
        return new InMemoryUserDetailsManager(
                User.withUsername("alice").password("{noop}a").roles("U").build(),
                User.withUsername("bob").password("{noop}b").roles("U").build());
    }

    /** The body of /typed. */
    public record Amount(java.math.BigDecimal amount) {}

    @RestController
    public static class Charges {
        private final JdbcTemplate jdbc;
        private final Map<String, AtomicInteger> flaky = new ConcurrentHashMap<>();

        public Charges(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        private long insert(Principal principal, String key, Object amount) {
            return jdbc.queryForObject(
                    "insert into " + table + " (principal, client_key, amount) values (?, ?, ?) returning id",
                    Long.class,
                    principal.getName(),
                    key,
                    String.valueOf(amount));
        }

        @PostMapping("/charges")
        public ResponseEntity<Map<String, Object>> charge(
                @RequestBody Map<String, Object> body,
                @RequestHeader("Idempotency-Key") String key,
                Principal principal) {
            long id = insert(principal, key, body.get("amount"));
            // Slow work, so that concurrent duplicates arrive while the first is in flight.
            jdbc.queryForObject("select pg_sleep(0.2)::text", String.class);
            return ResponseEntity.created(URI.create("/charges/" + id))
                    .header("X-Not-Replayed", "x")
                    .body(Map.of("id", id, "amount", body.get("amount"), "by", principal.getName()));
        }

        @PostMapping("/flaky")
        public ResponseEntity<Map<String, Object>> flaky(
                @RequestBody Map<String, Object> body,
                @RequestHeader("Idempotency-Key") String key,
                Principal principal) {
            if (flaky.computeIfAbsent(key, k -> new AtomicInteger()).getAndIncrement() == 0) {
                return ResponseEntity.status(503).body(Map.of("error", "downstream unavailable"));
            }
            long id = insert(principal, key, body.get("amount"));
            return ResponseEntity.status(201).body(Map.of("id", id));
        }

        final AtomicInteger asyncRuns = new AtomicInteger();

        /** An asynchronous response: the filter cannot store it, releases the key and passes it on. */
        @PostMapping("/async")
        public java.util.concurrent.Callable<String> async() {
            return () -> "async run " + asyncRuns.incrementAndGet();
        }

        @PostMapping("/big")
        public ResponseEntity<String> big() {
            return ResponseEntity.ok("x".repeat(4096));
        }

        /** Inserts, then fails: in the transactional modes the insert rolls back with the key. */
        @PostMapping("/fail-after-insert")
        public ResponseEntity<Map<String, Object>> failAfterInsert(
                @RequestBody Map<String, Object> body,
                @RequestHeader("Idempotency-Key") String key,
                Principal principal) {
            long id = insert(principal, key, body.get("amount"));
            if (flaky.computeIfAbsent(key, k -> new AtomicInteger()).getAndIncrement() == 0) {
                return ResponseEntity.status(503).body(Map.of("error", "ledger unavailable after insert " + id));
            }
            return ResponseEntity.status(201).body(Map.of("id", id));
        }

        /**
         * Inserts, then the database terminates this request's connection (a transient fault: one
         * killed backend) on the first call per key; later calls succeed.
         */
        @PostMapping("/killed-after-insert")
        public ResponseEntity<Map<String, Object>> killedAfterInsert(
                @RequestBody Map<String, Object> body,
                @RequestHeader("Idempotency-Key") String key,
                Principal principal) {
            long id = insert(principal, key, body.get("amount"));
            if (flaky.computeIfAbsent("killed:" + key, k -> new AtomicInteger()).getAndIncrement() == 0) {
                jdbc.queryForObject("select pg_terminate_backend(pg_backend_pid())", Boolean.class);
            }
            return ResponseEntity.status(201).body(Map.of("id", id));
        }

        /** A typed body: malformed JSON is Spring's 400, another media type its 415 (sendError). */
        @PostMapping(path = "/typed", consumes = "application/json")
        public ResponseEntity<Map<String, Object>> typed(
                @RequestBody Amount body, @RequestHeader("Idempotency-Key") String key, Principal principal) {
            long id = insert(principal, key, body.amount());
            return ResponseEntity.status(201).body(Map.of("id", id, "amount", body.amount()));
        }

        final AtomicInteger sendErrors = new AtomicInteger();

        /** Answers with sendError: the container writes the body later, so it cannot be stored. */
        @PostMapping("/send-error")
        public void sendError(jakarta.servlet.http.HttpServletResponse response) throws java.io.IOException {
            response.sendError(409, "conflict number " + sendErrors.incrementAndGet());
        }

        /** A 4xx that is an answer of an executed request (a declined card): stored and replayed. */
        @PostMapping("/decline")
        public ResponseEntity<Map<String, Object>> decline(
                @RequestHeader("Idempotency-Key") String key,
                @org.springframework.web.bind.annotation.RequestAttribute(IdempotencyKeyFilter.CLIENT_KEY_ATTRIBUTE)
                        String parsed) {
            return ResponseEntity.status(402).body(Map.of("error", "card declined", "key", key, "parsed", parsed));
        }

        @PostMapping("/reject")
        public ResponseEntity<Map<String, Object>> reject(@RequestHeader("Idempotency-Key") String key) {
            return ResponseEntity.badRequest().body(Map.of("error", "amount missing", "key", key));
        }
    }
}
