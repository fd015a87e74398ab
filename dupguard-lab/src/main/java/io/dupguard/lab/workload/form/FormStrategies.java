package io.dupguard.lab.workload.form;

import io.dupguard.jdbc.JdbcPreparedSubmissions;
import io.dupguard.jdbc.JdbcSubmissionTokens;
import io.dupguard.jdbc.JdbcSubmitThrottle;
import io.dupguard.lab.env.LabSql;
import io.dupguard.lab.env.RedisTarget;
import io.dupguard.lab.storm.Refused;
import io.dupguard.lab.storm.Service;
import io.dupguard.lab.workload.LabIdempotency;
import io.dupguard.redis.RedisSubmissionTokens;
import io.dupguard.redis.RedisSubmitThrottle;
import io.dupguard.token.SubmitThrottle;
import io.dupguard.token.TokenRefusedException;
import java.sql.SQLException;
import java.time.Duration;

/** The strategies of the form-submit workload: nothing, then the three tools (T1–T3). */
final class FormStrategies {
    static final String SCOPE = "post";
    static final Duration TOKEN_TTL = Duration.ofMinutes(30);
    static final Duration THROTTLE_WINDOW = Duration.ofSeconds(1);
    /** How long a token submit waits for an attempt in flight: as the lab's idempotency waits. */
    static final Duration WAIT = Duration.ofSeconds(10);

    private FormStrategies() {}

    /** Every submit inserts a post. */
    static final class None implements FormStrategy {
        private final PostTable posts;

        None(Context ctx) {
            this.posts = ctx.posts();
        }

        @Override
        public String submit(FormSubmit s, Service service) throws SQLException {
            service.pause();
            return posts.insert(s);
        }
    }

    /**
     * T1 on JDBC: the rendered form carries a one-time token ({@link JdbcSubmissionTokens}); the
     * submit deletes it in the transaction that inserts the post, so the token is spent exactly
     * when the post commits. A duplicate's delete waits on the row lock, then finds it gone
     * ("already submitted"); a failed or crashed attempt rolls both back and the retry runs.
     */
    static final class Token implements FormStrategy {
        private final PostTable posts;
        private final JdbcSubmissionTokens tokens;

        Token(Context ctx) throws SQLException {
            this.posts = ctx.posts();
            String table = fresh(ctx, "tokens");
            this.tokens = JdbcSubmissionTokens.create(ctx.env().dataSource(), table, true);
        }

        @Override
        public String render(String user) {
            return tokens.issue(SCOPE, user, TOKEN_TTL);
        }

        @Override
        public String submit(FormSubmit s, Service service) throws SQLException {
            try {
                return tokens.executeInTransaction(SCOPE, s.user(), s.formToken(), c -> {
                    service.pause();
                    return posts.insert(c, s);
                });
            } catch (TokenRefusedException e) {
                throw new Refused("this form was already submitted");
            }
        }
    }

    /**
     * T1 on Redis ({@link RedisSubmissionTokens}), two-phase: the submit marks the token in use
     * under the lab's lease, inserts the post, then deletes the token; a failed insert puts the
     * token back so the retry runs. A retry that finds its first attempt still running waits for it
     * (up to {@link #WAIT}, like the lab's idempotency): refused if it completed, run if it failed.
     */
    static final class RedisToken implements FormStrategy {
        private final PostTable posts;
        private final RedisSubmissionTokens tokens;
        private final String scope;

        RedisToken(Context ctx) {
            this.posts = ctx.posts();
            this.tokens = redisOf(ctx).newSubmissionTokens();
            this.scope = redisScope(ctx);
        }

        @Override
        public String render(String user) {
            return tokens.issue(scope, user, TOKEN_TTL);
        }

        @Override
        public String submit(FormSubmit s, Service service) throws SQLException {
            try {
                return tokens.execute(scope, s.user(), s.formToken(), LabIdempotency.LEASE, WAIT, () -> {
                    service.pause();
                    return posts.insert(s);
                });
            } catch (TokenRefusedException e) {
                throw new Refused("this form was already submitted");
            }
        }

        @Override
        public void close() {
            tokens.close();
        }
    }

    /**
     * T2: the rendered form carries a pre-id ({@link JdbcPreparedSubmissions}); the submit binds
     * exactly one post to it in the transaction that inserts the post, and a repeat gets that post.
     */
    static final class Prepared implements FormStrategy {
        private final PostTable posts;
        private final JdbcPreparedSubmissions prepared;

        Prepared(Context ctx) throws SQLException {
            this.posts = ctx.posts();
            String table = fresh(ctx, "prepared");
            this.prepared = JdbcPreparedSubmissions.create(ctx.env().dataSource(), table, true);
        }

        @Override
        public String render(String user) {
            return prepared.prepare(user);
        }

        @Override
        public String submit(FormSubmit s, Service service) throws SQLException {
            service.pause();
            return prepared.commit(s.user(), s.formToken(), c -> posts.insert(c, s))
                    .value();
        }
    }

    /**
     * T3: one submit per user per second ({@link JdbcSubmitThrottle}). It stops a double click
     * without any token — and refuses the user's next, different submit within the same second.
     */
    static final class Throttle implements FormStrategy {
        private final PostTable posts;
        private final SubmitThrottle throttle;
        private final String scope;
        private final Runnable onClose;

        private Throttle(Context ctx, SubmitThrottle throttle, String scope, Runnable onClose) {
            this.posts = ctx.posts();
            this.throttle = throttle;
            this.scope = scope;
            this.onClose = onClose;
        }

        static Throttle jdbc(Context ctx) throws SQLException {
            String table = fresh(ctx, "throttle");
            return new Throttle(ctx, JdbcSubmitThrottle.create(ctx.env().dataSource(), table, true), SCOPE, () -> {});
        }

        static Throttle redis(Context ctx) {
            RedisSubmitThrottle throttle = redisOf(ctx).newSubmitThrottle();
            return new Throttle(ctx, throttle, redisScope(ctx), throttle::close);
        }

        @Override
        public String submit(FormSubmit s, Service service) throws SQLException {
            if (!throttle.tryAcquire(scope, s.user(), THROTTLE_WINDOW)) {
                throw new Refused("too fast: one submit per " + THROTTLE_WINDOW.toMillis() + " ms");
            }
            service.pause();
            return posts.insert(s);
        }

        @Override
        public void close() {
            onClose.run();
        }
    }

    private static RedisTarget redisOf(FormStrategy.Context ctx) {
        return ctx.env().redis().orElseThrow(() -> new IllegalStateException("needs --redis-url"));
    }

    /** The keys live in a Redis that outlives the trial: a scope of the trial's own, so no earlier trial's answer. */
    private static String redisScope(FormStrategy.Context ctx) {
        return SCOPE + "-" + ctx.env().runId() + "-" + ctx.env().nextTrial();
    }

    /** Drops the store table a previous run left, so the store creates it afresh. */
    private static String fresh(FormStrategy.Context ctx, String suffix) throws SQLException {
        String table = ctx.tablePrefix() + suffix;
        LabSql.recreate(ctx.env().dataSource(), new String[] {table});
        return table;
    }
}
