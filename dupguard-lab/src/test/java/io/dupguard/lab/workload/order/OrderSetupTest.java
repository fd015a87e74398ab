package io.dupguard.lab.workload.order;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.lab.env.LabEnvironment;
import io.dupguard.lab.storm.Effects;
import io.dupguard.lab.storm.Request;
import io.dupguard.lab.storm.Strategy;
import io.dupguard.lab.storm.Trial;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The order the user is about to pay is the lab's own setup. Under {@code connection-kill} its
 * create can fail after the commit; the client then asks for the same order again, which must
 * neither fail nor create a second order, and an order whose create failed as the storm ended (never
 * sent) is none of the strategy's business.
 */
class OrderSetupTest {
    private static final String TABLE = "dupguard_lab_order_lock_and_transitions";

    private LabEnvironment env;
    private Trial trial;

    @BeforeEach
    void open() throws Exception {
        env = LabEnvironment.open(null, null);
        OrderPaymentWorkload workload = new OrderPaymentWorkload();
        Strategy strategy = workload.strategies().stream()
                .filter(s -> s.name().equals("lock-and-transitions"))
                .findFirst()
                .orElseThrow();
        trial = workload.open(strategy, env);
    }

    @AfterEach
    void close() {
        trial.close();
        env.close();
    }

    @Test
    void anOrderPreparedAgainAfterAFailedCreateIsTheSameOrderCreatedOnce() throws Exception {
        SplittableRandom random = new SplittableRandom(42);
        Request first = trial.newRequest(3, 7, random);
        Request again = trial.newRequest(3, 7, random); // the random stream has moved on

        assertThat(again).isEqualTo(first);
        assertThat(orderRows()).isOne();
    }

    @Test
    void anOrderNeverSentIsNotReportedStuck() throws Exception {
        trial.newRequest(0, 0, new SplittableRandom(1));

        Effects e = trial.check(List.of());

        assertThat(e.violations()).isEmpty();
        assertThat(e.metrics()).containsEntry("stuckInPaying", 0L);
    }

    private long orderRows() throws Exception {
        try (Connection c = env.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + TABLE)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
