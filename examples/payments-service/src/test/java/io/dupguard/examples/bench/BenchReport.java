package io.dupguard.examples.bench;

import io.dupguard.examples.bench.FilterBenchmark.Round;
import io.dupguard.examples.bench.FilterBenchmark.Variant;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** Writes docs/benchmarks-spring-boot.md from one run's rounds: the median round of each row. */
final class BenchReport {
    private BenchReport() {}

    static void write(
            Path out,
            Instant started,
            String loadStart,
            String loadEnd,
            Map<Variant, List<Round>> results,
            double redisRtt,
            double pgRtt,
            Duration outboxWait)
            throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmark: the HTTP Idempotency-Key filter\n\n")
                .append("Requests/s and latency of the example service's `POST /payments` (Spring Security basic auth")
                .append(" with the demo's `{noop}` passwords kept as stored — see `ApiSecurity`; with BCrypt every")
                .append(" row would measure ~70 ms of password hashing per request —, a card-network call in its own")
                .append(" transaction, a PostgreSQL insert, the credit enqueued in the retry log (the outbox) and")
                .append(" published to RabbitMQ after the commit) without a filter, with dupguard's filter in each of")
                .append(" its modes, and with the hand-written filter that is each mode's **ceiling**, the leanest")
                .append(" correct design an expert would write by hand (see `HandWrittenIdempotencyFilter`):\n\n")
                .append("- **transactional** (`dupguard.store=jdbc`): the request runs in one transaction of the")
                .append(" app's transaction manager, the key's row claimed first in it. Ceiling: `INSERT … ON CONFLICT")
                .append(" DO NOTHING` of the row (key, fingerprint, status, response) — a duplicate waits on its")
                .append(" lock, then reads the stored response —, the request, `UPDATE` of the row with the")
                .append(" response, commit.\n")
                .append("- **backstop** (`dupguard.store=redis` with the DataSource): Redis claims first, then the")
                .append(" transactional design with the row as backstop, Redis completed after the commit. Ceiling:")
                .append(" `SET NX PX`, the transactional ceiling's transaction, `SET` of the response after the")
                .append(" commit.\n")
                .append("- **store** (`dupguard.http.mode=store`, Redis; the record outside the app's")
                .append(" transaction, for reference). Ceiling: `SET NX PX` to claim, `SET` to complete.\n\n")
                .append("All seven apps run in one JVM and are driven in turn, so the ratios compare rows of one run.")
                .append(" Every request carries a new key (the first-request path).\n\n")
                .append("Written by `FilterBenchmark` (examples/payments-service test sources).\n\n## Command\n\n```\n")
                .append(FilterBenchmark.COMMAND)
                .append("\n```\n\n");
        machine(md, started, loadStart, loadEnd, redisRtt, pgRtt);
        md.append("## Settings\n\n");
        if (FilterBenchmark.SMOKE) {
            md.append("**SMOKE RUN (`-Dbench.smoke=true`): 1 s windows, one round; the numbers mean nothing.**\n\n");
        }
        md.append(FilterBenchmark.THREADS)
                .append(" client threads (java.net.http, HTTP/1.1 keep-alive) in a closed loop; every app warmed ")
                .append(FilterBenchmark.WARMUP.toSeconds())
                .append(" s unmeasured, then ")
                .append(FilterBenchmark.ROUNDS)
                .append(" rounds of 1 s warm-up + ")
                .append(FilterBenchmark.MEASURE.toSeconds())
                .append(" s measured per app, the order reversed every other round. Each app's pool holds up to ")
                .append(FilterBenchmark.POOL)
                .append(" connections (a request holds one for its transaction and a second for the gateway's).")
                .append(" Before each window the run waits until the retry log has published every credit due, so")
                .append(" one app's outbox does not run in the next app's window (longest wait: ")
                .append(String.format("%.1f s", outboxWait.toMillis() / 1000.0))
                .append(").")
                .append(" The table shows the **median** round of each row (requests/s, p50, p99); the last column")
                .append(" lists every round's requests/s. *vs ceiling* divides a dupguard row by its hand-written")
                .append(" ceiling (target ≥ 90 %).\n\n## Results\n\n")
                .append("| variant | requests/s | vs no filter | vs ceiling | p50 ms | p99 ms | p50 added vs no filter")
                .append(" | errors | rounds (req/s) |\n")
                .append("|---|---|---|---|---|---|---|---|---|\n");
        rows(md, results);
        md.append("\n## Notes\n\n")
                .append("Per first request the filters add: transactional, two statements in the request's")
                .append(" transaction (claim, completion) — no extra commit, the request commits anyway —; backstop,")
                .append(" those plus two Redis round trips; store, two Redis round trips. Round trips when idle: ")
                .append(String.format("%.2f", redisRtt))
                .append(" ms Redis, ")
                .append(String.format("%.2f", pgRtt))
                .append(" ms PostgreSQL (p50). On 2 shared cores the added latency is dominated by CPU contention")
                .append(" between the 16 client threads, Tomcat, PostgreSQL, Redis, RabbitMQ and the retry log's")
                .append(" workers rather than by the round trips. dupguard also canonicalises and hashes method, path")
                .append(" and body into the fingerprint, stores selected response headers and scopes the key to the")
                .append(" principal by a hash; the ceilings hash the body and store the body only.\n\n")
                .append("Before each app is measured the run checks its setup and stops otherwise: dupguard's filter")
                .append(" runs in the row's mode, or is off where a hand-written filter or none is measured (the")
                .append(" apps' properties are command-line arguments, which override application.properties); the")
                .append(
                        " demo password is still stored as `{noop}` (Spring Security upgrades it to BCrypt after the first login")
                .append(" when the user store is a `UserDetailsPasswordService`; BCrypt costs ~70 ms of CPU per")
                .append(" request and capped an idle 2-core run at ~27 requests/s in every row); two principals")
                .append(" sending one key get two independent payments (key scoping on); and, with a filter, ")
                .append(SetupCheck.DUPLICATES)
                .append(" concurrent duplicates of a first request make one payment and one gateway call — each a")
                .append(" 201 with the same body (or a 409 while in flight where Redis answers first) — then a retry")
                .append(" replays it and another body with the key gets 422.\n\n")
                .append("The apps share the database and broker with nothing else of the run's: their outbox is")
                .append(" the table `")
                .append(FilterBenchmark.RETRY_TABLE)
                .append("`, their credits go to the queue `")
                .append(FilterBenchmark.CREDITS)
                .append("` (no listener; purged at the end), and the idempotency tables start empty.\n");
        Files.writeString(out, md.toString());
        System.out.println(md);
    }

    private static void machine(
            StringBuilder md, Instant started, String loadStart, String loadEnd, double redisRtt, double pgRtt) {
        md.append("## Machine\n\n| | |\n|---|---|\n")
                .append(row("started", started.toString()))
                .append(row(
                        "cores",
                        Runtime.getRuntime().availableProcessors() + " (shared with the servers and other work)"))
                .append(row("Java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version")))
                .append(row(
                        "JVM args",
                        String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments())))
                .append(row("load average at start", loadStart))
                .append(row("load average at end", loadEnd))
                .append(row("Redis round trip (PING, p50)", String.format("%.3f ms", redisRtt)))
                .append(row("PostgreSQL round trip (select 1, p50)", String.format("%.3f ms", pgRtt)))
                .append('\n');
    }

    private static String row(String name, String value) {
        return "| " + name + " | " + value + " |\n";
    }

    private static void rows(StringBuilder md, Map<Variant, List<Round>> results) {
        Map<String, Double> rpsByName = new HashMap<>();
        results.forEach((v, rounds) -> rpsByName.put(v.name(), median(rounds, Round::rps)));
        double baseRps = rpsByName.get(FilterBenchmark.NO_FILTER);
        double baseP50 = Double.NaN;
        for (Map.Entry<Variant, List<Round>> e : results.entrySet()) {
            Variant v = e.getKey();
            List<Round> rounds = e.getValue();
            double rps = rpsByName.get(v.name());
            double p50 = median(rounds, Round::p50);
            if (v.name().equals(FilterBenchmark.NO_FILTER)) {
                baseP50 = p50;
            }
            String vsCeiling = v.ceiling() == null ? "" : String.format("**%.2f×**", rps / rpsByName.get(v.ceiling()));
            List<String> each = new ArrayList<>();
            for (Round r : rounds) {
                each.add(String.format("%.0f", r.rps()));
            }
            md.append(String.format(
                    "| %s | %.0f | %.0f %% | %s | %.1f | %.1f | %+.1f ms | %d | %s |%n",
                    v.name(),
                    rps,
                    100 * rps / baseRps,
                    vsCeiling,
                    p50,
                    median(rounds, Round::p99),
                    p50 - baseP50,
                    rounds.stream().mapToLong(Round::errors).sum(),
                    String.join(", ", each)));
        }
    }

    private static double median(List<Round> rounds, ToDoubleFunction<Round> metric) {
        List<Double> v = new ArrayList<>();
        for (Round r : rounds) {
            v.add(metric.applyAsDouble(r));
        }
        Collections.sort(v);
        return v.get(v.size() / 2);
    }
}
