package io.dupguard.docs;

import static io.dupguard.docs.StateAndCasSnippets.OrderStatus.FAIL;
import static io.dupguard.docs.StateAndCasSnippets.OrderStatus.PAYING;
import static io.dupguard.docs.StateAndCasSnippets.OrderStatus.READY;
import static io.dupguard.docs.StateAndCasSnippets.OrderStatus.SUCCESS;

import io.dupguard.jdbc.CreateOnce;
import io.dupguard.jdbc.JdbcTransitions;
import io.dupguard.jdbc.UnfinishedGuard;
import io.dupguard.state.StateMachine;
import io.dupguard.state.TransitionResult;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/** The snippets of docs/state-and-cas.md. */
class StateAndCasSnippets {

    enum OrderStatus {
        READY,
        PAYING,
        SUCCESS,
        FAIL
    }

    static TransitionResult<OrderStatus> statusFlow(Connection conn, long orderId) throws SQLException {
        // tag::statusFlow[]
        StateMachine<OrderStatus> orders = StateMachine.builder(OrderStatus.class)
                .transition(READY, PAYING)
                .transition(PAYING, SUCCESS, FAIL)
                .build();
        JdbcTransitions<OrderStatus> transitions = JdbcTransitions.of(orders, "orders", "id", "status");

        TransitionResult<OrderStatus> r = transitions.apply(conn, orderId, READY, PAYING);
        if (r.applied()) {
            pay(orderId);                                                    // this caller moved it
        } else if (r instanceof TransitionResult.AlreadyApplied<OrderStatus>) {
            // a duplicate: the order is already PAYING
        } else if (r instanceof TransitionResult.Rejected<OrderStatus> rejected) {
            log("order is " + rejected.current());
        }
        // end::statusFlow[]
        return r;
    }

    static Optional<Long> unfinishedGuard(DataSource dataSource, Connection conn) throws SQLException {
        // tag::unfinishedGuard[]
        UnfinishedGuard guard = UnfinishedGuard.builder(dataSource).createSchemaIfMissing(true).build(); // or apply the DDL
        Optional<Long> id = guard.insertIfNoneUnfinished(conn, "2026-11-22/east/settlement",
                c -> exists(c, "SELECT 1 FROM tasks WHERE kind = ? AND status <> 'DONE'"),
                c -> insertTask(c));          // runs only if none is unfinished; you commit
        // end::unfinishedGuard[]
        return id;
    }

    static CreateOnce.Result createOnce(DataSource dataSource) {
        // tag::createOnce[]
        CreateOnce balances = CreateOnce.builder(dataSource, "account_balance")
                .keyColumns("user_id")            // needs a unique key on it
                .verifiedColumns("currency")      // an existing row with another currency is an error
                .build();
        CreateOnce.Result r = balances.create(Map.of("user_id", 7, "currency", "CNY", "amount", BigDecimal.ZERO));
        r.created();   // false for every caller but one; r.row() is the stored row
        // end::createOnce[]
        return r;
    }

    static void pay(long orderId) {}

    static void log(String message) {}

    static boolean exists(Connection c, String sql) throws SQLException {
        return false;
    }

    static long insertTask(Connection c) throws SQLException {
        return 1L;
    }
}
