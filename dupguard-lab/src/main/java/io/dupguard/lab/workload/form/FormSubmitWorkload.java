package io.dupguard.lab.workload.form;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Chart;
import io.dupguard.lab.storm.Effects;
import io.dupguard.lab.storm.Need;
import io.dupguard.lab.storm.Request;
import io.dupguard.lab.storm.Sent;
import io.dupguard.lab.storm.Service;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.StrategyCatalog;
import io.dupguard.lab.storm.StrategyResult;
import io.dupguard.lab.storm.Trial;
import io.dupguard.lab.storm.Workload;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Seeds 000 and 001 (guarantees T1–T3): users submit forms — every submit a different one — and double
 * clicks and browser retries repeat a submit. One post per logical submit, and no submit lost. The
 * users are {@value #USERS} people, drawn at random, so now and then one submits two different forms
 * within a second.
 */
public final class FormSubmitWorkload implements Workload {
    public static final String NAME = "form-submit";

    static final int USERS = 100_000;

    /**
     * Share of submits that are a second, different form from the user who just submitted one
     * (another tab): on purpose, so the throttle's refusals of different submits show at any load,
     * not only when chance makes two of 100,000 users collide.
     */
    static final double SAME_USER_AGAIN = 0.02;

    static final String DIFFERENT_SUBMITS_REFUSED = "differentSubmitsRefused";

    /** The throttle never duplicates: its failure is the different submits it refuses outright. */
    private static final List<Chart> CHARTS = List.of(new Chart(
            "failures",
            "Failures per strategy: duplicate effects, different submits refused on every attempt",
            List.of(
                    new Chart.Series("duplicate effects", StrategyResult.DUPLICATE_EFFECTS),
                    new Chart.Series("different submits refused", DIFFERENT_SUBMITS_REFUSED))));

    private static final StrategyCatalog<FormStrategy.Context, FormStrategy> CATALOG = new StrategyCatalog<
                    FormStrategy.Context, FormStrategy>()
            .add(Strategy.naive("none", "INSERT a post for every submit"), FormStrategies.None::new)
            .add(
                    Strategy.naive(
                            "throttle",
                            "SubmitThrottle (T3), 1 submit per user per 1 s: a rate limit also refuses a different"
                                    + " second submit"),
                    FormStrategies.Throttle::jdbc)
            .add(
                    Strategy.naive(
                            "throttle-redis",
                            "RedisSubmitThrottle (T3), 1 submit per user per 1 s: SET NX PX; also refuses a different"
                                    + " second submit",
                            Need.REDIS),
                    FormStrategies.Throttle::redis)
            .add(
                    Strategy.dupguard(
                            "token",
                            "SubmissionTokens (T1): one-time token in the form, deleted in the post's transaction"),
                    FormStrategies.Token::new)
            .add(
                    Strategy.dupguard(
                            "token-redis",
                            "RedisSubmissionTokens (T1): one-time token in the form, claimed under a lease, deleted"
                                    + " after the post, put back on failure",
                            Need.REDIS),
                    FormStrategies.RedisToken::new)
            .add(
                    Strategy.dupguard(
                            "prepared",
                            "PreparedSubmissions (T2): pre-id in the form, bound to one post in the post's transaction"),
                    FormStrategies.Prepared::new);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "one post per submitted form under double clicks and browser retries (T1-T3)";
    }

    @Override
    public List<Chart> charts() {
        return CHARTS;
    }

    @Override
    public List<Strategy> strategies() {
        return CATALOG.strategies();
    }

    /** Every strategy keeps its state in the database. */
    @Override
    public boolean sharedByInstances(Strategy strategy) {
        return true;
    }

    /**
     * {@code token} deletes the token in the post's transaction and {@code prepared} binds the post
     * in it: both commit together. {@code token-redis} inserts the post, then deletes the token: an
     * instance that dies between the two leaves the token under its lease; its retries wait for
     * the attempt in flight, and once the lease (2 s) ran out they take the token over and insert a
     * second post: not durable under {@code instance-crash}.
     */
    @Override
    public boolean effectCommitsWithRecord(Strategy strategy) {
        return !strategy.name().equals("token-redis");
    }

    /**
     * {@code token-redis}'s only write after the post is the token's completion, which is retried
     * while its lease holds; a post insert that fails puts the token back.
     */
    @Override
    public boolean survivesKilledConnections(Strategy strategy) {
        return true;
    }

    @Override
    public Trial open(Strategy strategy, LabEnvironment env) throws Exception {
        String name = "dupguard_lab_post_" + strategy.name().replace('-', '_');
        PostTable posts = new PostTable(env, name);
        posts.recreate();
        return new FormTrial(
                posts,
                CATALOG.create(strategy, new FormStrategy.Context(env, posts, name + "_")),
                new ConcurrentHashMap<>());
    }

    private record FormTrial(PostTable posts, FormStrategy strategy, Map<Integer, String> lastUser) implements Trial {
        @Override
        public Request newRequest(int client, long seq, SplittableRandom random) {
            String previous = lastUser.get(client);
            String user = previous != null && random.nextDouble() < SAME_USER_AGAIN
                    ? previous
                    : "user-" + random.nextInt(USERS);
            lastUser.put(client, user);
            return new FormSubmit(
                    String.format("sub-%03d-%07d", client, seq),
                    user,
                    "post " + HexFormat.of().toHexDigits(random.nextLong()),
                    strategy.render(user));
        }

        @Override
        public Object serve(Request request, Service service) throws Exception {
            return strategy.submit((FormSubmit) request, service);
        }

        @Override
        public void close() {
            strategy.close();
        }

        @Override
        public Effects check(List<Sent> ledger) throws SQLException {
            Map<String, List<PostTable.Row>> bySubmit = posts.rows().stream()
                    .collect(Collectors.groupingBy(PostTable.Row::submitId, LinkedHashMap::new, Collectors.toList()));
            long duplicates = 0;
            String evidence = "";
            for (List<PostTable.Row> rows : bySubmit.values()) {
                duplicates += rows.size() - 1;
                if (evidence.isEmpty() && rows.size() > 1) {
                    long spread = rows.get(rows.size() - 1).createdAtMillis()
                            - rows.get(0).createdAtMillis();
                    evidence = "submit " + rows.get(0).submitId() + " created " + rows.size() + " posts in "
                            + posts.name + ": ids "
                            + rows.stream().map(r -> Long.toString(r.id())).collect(Collectors.joining(", "))
                            + ", " + spread + " ms apart";
                }
            }
            long lost = 0;
            long refusedOutright = 0;
            for (Sent sent : ledger) {
                FormSubmit s = (FormSubmit) sent.request();
                List<PostTable.Row> rows = bySubmit.getOrDefault(s.submitId(), List.of());
                if (sent.acknowledged()
                        && rows.stream()
                                .noneMatch(r -> Long.toString(r.id()).equals(sent.response())
                                        && r.content().equals(s.content()))) {
                    lost++;
                }
                // Refused on every attempt although nothing took effect: a submit whose post exists
                // (its answer was lost with a crashed instance or a killed connection) was not lost
                // to a refusal, and "already submitted" is the truth for it.
                if (!sent.acknowledged() && sent.refusals() > 0 && rows.isEmpty()) {
                    refusedOutright++;
                }
            }
            List<String> violations = refusedOutright == 0
                    ? List.of()
                    : List.of(refusedOutright + " different submits refused on every attempt: "
                            + (strategy instanceof FormStrategies.Throttle
                                    ? "a rate limit cannot tell a second form from a double click"
                                    : "refused although none of their attempts took effect"));
            return new Effects(
                    duplicates, lost, 0, evidence, violations, Map.of(DIFFERENT_SUBMITS_REFUSED, refusedOutright));
        }
    }
}
