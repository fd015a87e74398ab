package io.dupguard.examples.bench;

import io.dupguard.examples.bench.FilterBenchmark.Duplicates;
import io.dupguard.examples.bench.FilterBenchmark.Variant;
import io.dupguard.examples.payments.PaymentController;
import io.dupguard.spring.IdempotentExecution.Mode;
import io.dupguard.spring.web.IdempotencyKeyFilter;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.security.core.userdetails.UserDetailsService;

/**
 * Refuses to measure a setup other than the one described, before each app is measured: dupguard's
 * filter runs in the variant's mode (or is off); the demo password is still stored as {@code {noop}}
 * (no BCrypt per request); two principals with one key
 * get two payments (keys scoped to the principal); and a filter takes concurrent duplicates of a
 * first request once — one payment, one call to the gateway, every 201 the same body.
 */
final class SetupCheck {
    /** Concurrent duplicates sent with one key. */
    static final int DUPLICATES = 8;

    private SetupCheck() {}

    static void check(HttpClient http, Variant v, ConfigurableApplicationContext app)
            throws IOException, InterruptedException {
        String stored = app.getBean(UserDetailsService.class)
                .loadUserByUsername("shop-a")
                .getPassword();
        if (stored == null || !stored.startsWith("{noop}")) {
            fail(
                    v,
                    "shop-a's password is stored as "
                            + (stored == null ? "null" : stored.substring(0, Math.min(8, stored.length())))
                            + "…, not {noop}: the run would measure the password hash, not the filter");
        }
        checkMode(v, app);
        int port = FilterBenchmark.port(app);
        String key = UUID.randomUUID().toString();
        HttpResponse<String> a = http.send(
                FilterBenchmark.post(port, "shop-a:secret-a", key, "check"), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> b = http.send(
                FilterBenchmark.post(port, "shop-b:secret-b", key, "check"), HttpResponse.BodyHandlers.ofString());
        if (a.statusCode() != 201 || b.statusCode() != 201) {
            fail(v, "expected 201 for both principals, got " + a.statusCode() + " and " + b.statusCode());
        }
        if (replayed(b) || a.body().equals(b.body())) {
            fail(v, "shop-b received shop-a's response for the same key");
        }
        if (v.duplicates() != Duplicates.NOT_CHECKED) {
            checkDuplicates(http, v, app, port);
        }
    }

    /** Properties given to the app took effect: dupguard's filter runs in the variant's mode, or not at all. */
    private static void checkMode(Variant v, ConfigurableApplicationContext app) {
        String bean = "dupguardIdempotencyKeyFilter";
        if (v.mode() == null) {
            if (app.containsBean(bean)) {
                fail(v, "dupguard's filter is on (dupguard.http.enabled=false did not take effect)");
            }
            return;
        }
        Object filter = app.getBean(bean, FilterRegistrationBean.class).getFilter();
        Mode mode = ((IdempotencyKeyFilter) filter).execution().mode();
        if (mode != v.mode()) {
            fail(v, "dupguard's filter runs in " + mode + " mode, not " + v.mode());
        }
    }

    private static void checkDuplicates(HttpClient http, Variant v, ConfigurableApplicationContext app, int port) {
        String key = UUID.randomUUID().toString();
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < DUPLICATES; i++) {
            sent.add(http.sendAsync(
                    FilterBenchmark.post(port, "shop-a:secret-a", key, "duplicates"),
                    HttpResponse.BodyHandlers.ofString()));
        }
        String first = null;
        int ran = 0;
        for (CompletableFuture<HttpResponse<String>> f : sent) {
            HttpResponse<String> r = f.join();
            if (r.statusCode() == 409 && v.duplicates() == Duplicates.REJECT_OR_REPLAY) {
                continue;
            }
            if (r.statusCode() != 201) {
                fail(v, "a concurrent duplicate got " + r.statusCode() + ": " + r.body());
            }
            if (first != null && !first.equals(r.body())) {
                fail(v, "concurrent duplicates got different 201 bodies: " + first + " and " + r.body());
            }
            first = r.body();
            ran += replayed(r) ? 0 : 1;
        }
        if (ran != 1) {
            fail(v, ran + " of " + DUPLICATES + " concurrent duplicates were answered as first requests");
        }
        HttpResponse<String> retry = http.sendAsync(
                        FilterBenchmark.post(port, "shop-a:secret-a", key, "duplicates"),
                        HttpResponse.BodyHandlers.ofString())
                .join();
        if (retry.statusCode() != 201 || !replayed(retry) || !retry.body().equals(first)) {
            fail(
                    v,
                    "the retry after the duplicates got " + retry.statusCode() + " " + retry.body()
                            + ", not the replay of " + first);
        }
        HttpResponse<String> reused = http.sendAsync(
                        FilterBenchmark.post(port, "shop-a:secret-a", key, "another-account"),
                        HttpResponse.BodyHandlers.ofString())
                .join();
        if (reused.statusCode() != 422) {
            fail(v, "the key reused with another body got " + reused.statusCode() + ", not 422");
        }
        String ref = PaymentController.reference("shop-a", key).toString();
        JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
        Integer payments = jdbc.queryForObject(
                "select count(*) from example_payments_v2 where payment_ref = ?", Integer.class, ref);
        Integer calls = jdbc.queryForObject(
                "select coalesce(sum(calls), 0) from example_gateway_authorisations where auth_key = ?",
                Integer.class,
                ref);
        if (payments != 1 || calls != 1) {
            fail(
                    v,
                    DUPLICATES + " concurrent duplicates made " + payments + " payments and " + calls
                            + " gateway calls, not 1 and 1");
        }
    }

    private static boolean replayed(HttpResponse<?> r) {
        return r.headers().firstValue("Idempotent-Replayed").isPresent();
    }

    private static void fail(Variant v, String problem) {
        throw new IllegalStateException(v.name() + ": " + problem);
    }
}
