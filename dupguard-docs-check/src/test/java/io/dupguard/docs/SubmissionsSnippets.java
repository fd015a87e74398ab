package io.dupguard.docs;

import io.dupguard.idempotency.Outcome;
import io.dupguard.jdbc.JdbcPreparedSubmissions;
import io.dupguard.jdbc.JdbcSubmissionTokens;
import io.dupguard.jdbc.JdbcSubmitThrottle;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import java.sql.Connection;
import java.time.Duration;
import javax.sql.DataSource;

/** The snippets of docs/submissions.md. */
class SubmissionsSnippets {

    record FormRequest(String token) {}

    record Draft(String text) {}

    static String tokens(DataSource dataSource, String userId, FormRequest request) {
        // tag::tokens[]
        SubmissionTokens tokens = JdbcSubmissionTokens.create(dataSource);      // or InMemorySubmissionTokens
        // the table must exist: apply io/dupguard/jdbc/schema/<dialect>.sql, or build with
        // JdbcSubmissionTokens.builder(dataSource).createSchemaIfMissing(true).build() (the same for the others)
        String token = tokens.issue("checkout", userId, Duration.ofMinutes(30)); // put it in the form
        // ... the form comes back:
        if (!tokens.consume("checkout", userId, request.token())) {
            return "This form was already submitted";                            // every duplicate lands here
        }
        // end::tokens[]
        return "Submitted";
    }

    static Outcome<String> prepared(DataSource dataSource, String userId, Draft draft) {
        // tag::prepared[]
        JdbcPreparedSubmissions prepared = JdbcPreparedSubmissions.create(dataSource);
        String preId = prepared.prepare(userId);                                    // render the editor
        Outcome<String> post = prepared.commit(userId, preId, conn -> insertPost(conn, draft)); // same transaction
        post.value();   // the one post id, for the first save and every repeat
        // end::prepared[]
        return post;
    }

    static String throttle(DataSource dataSource, String userId) {
        // tag::throttle[]
        SubmitThrottle throttle = JdbcSubmitThrottle.create(dataSource);
        if (!throttle.tryAcquire("orders", userId, Duration.ofSeconds(5))) return "Too fast, try again";
        // end::throttle[]
        return "Submitted";
    }

    static String insertPost(Connection conn, Draft draft) {
        return "post-1";
    }
}
