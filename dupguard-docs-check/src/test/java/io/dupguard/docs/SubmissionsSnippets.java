package io.dupguard.docs;

import io.dupguard.idempotency.Outcome;
import io.dupguard.jdbc.JdbcPreparedSubmissions;
import io.dupguard.jdbc.JdbcSubmissionTokens;
import io.dupguard.jdbc.JdbcSubmitThrottle;
import io.dupguard.token.SubmissionTokens;
import io.dupguard.token.SubmitThrottle;
import io.dupguard.token.TokenClaim;
import io.dupguard.token.TokenRefusedException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;

/** The snippets of docs/submissions.md. */
class SubmissionsSnippets {

    record FormRequest(String token) {}

    record Draft(String text) {}

    record Cart(String items) {}

    interface Orders {
        String place(Cart cart);
    }

    static String tokens(DataSource dataSource, String userId, FormRequest request, Orders orders, Cart cart) {
        // tag::tokens[]
        SubmissionTokens tokens = JdbcSubmissionTokens.create(dataSource);      // or Redis…, InMemorySubmissionTokens
        // the table must exist: apply io/dupguard/jdbc/schema/<dialect>.sql, or build with
        // JdbcSubmissionTokens.builder(dataSource).createSchemaIfMissing(true).build() (the same for the others)
        String token = tokens.issue("checkout", userId, Duration.ofMinutes(30)); // put it in the form
        // ... the form comes back:
        try {
            return tokens.execute("checkout", userId, request.token(), () -> orders.place(cart));
        } catch (TokenRefusedException e) {
            return "This form was already submitted";                            // every duplicate lands here
        }
        // end::tokens[]
    }

    static String tokenClaim(SubmissionTokens tokens, String userId, FormRequest request, Orders orders, Cart cart) {
        // tag::token-claim[]
        Optional<TokenClaim> claimed = tokens.claim("checkout", userId, request.token());
        if (claimed.isEmpty()) {
            return "This form was already submitted";
        }
        try (TokenClaim claim = claimed.get()) { // closed without complete(): the token is put back
            String orderId = orders.place(cart);
            claim.complete();                    // the token is gone for good
            return orderId;
        }
        // end::token-claim[]
    }

    static String tokenInTransaction(DataSource dataSource, String userId, FormRequest request, Cart cart)
            throws SQLException {
        // tag::token-transaction[]
        JdbcSubmissionTokens tokens = JdbcSubmissionTokens.create(dataSource);
        try {
            return tokens.executeInTransaction("checkout", userId, request.token(),
                    conn -> insertOrder(conn, cart));  // the token's delete commits with the order row
        } catch (TokenRefusedException e) {
            return "This form was already submitted";
        }
        // end::token-transaction[]
    }

    static boolean tokenInOwnTransaction(JdbcSubmissionTokens tokens, Connection conn, String userId, String token)
            throws SQLException {
        // tag::token-own-transaction[]
        conn.setAutoCommit(false);
        if (!tokens.consume(conn, "checkout", userId, token)) { // waits for a concurrent duplicate's transaction
            conn.rollback();
            return false;                                         // already submitted
        }
        insertOrder(conn, new Cart("…"));
        conn.commit();                                            // token and order commit together
        // end::token-own-transaction[]
        return true;
    }

    static String tokenOneCall(SubmissionTokens tokens, String userId, FormRequest request, Orders orders, Cart cart) {
        // tag::token-one-call[]
        if (!tokens.consume("checkout", userId, request.token())) {
            return "This form was already submitted";
        }
        return orders.place(cart); // if this fails, the token is burnt: every retry of this submit is refused
        // end::token-one-call[]
    }

    static String insertOrder(Connection conn, Cart cart) throws SQLException {
        return "order-1";
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
