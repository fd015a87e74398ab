package io.dupguard.docs;

import com.zaxxer.hikari.HikariDataSource;
import io.dupguard.retry.RetryLog;
import io.dupguard.retry.TaskOptions;
import io.dupguard.spring.annotation.DistributedLock;
import io.dupguard.spring.annotation.DistributedLocks;
import io.dupguard.spring.annotation.Idempotent;
import io.dupguard.spring.retry.RetryTaskHandler;
import java.math.BigDecimal;
import java.net.URI;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;
import org.springframework.jdbc.datasource.lookup.AbstractRoutingDataSource;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;

/** The snippets of docs/spring-boot.md. */
class SpringBootSnippets {

    record PaymentRequest(String id, BigDecimal amount, String account) {}

    record Receipt(String id) {}

    record Order(String id) {}

    interface Payments {
        Receipt charge(PaymentRequest request);
    }

    interface Notifier {
        void send(String payload, String idempotencyKey);
    }

    interface Orders {
        void insert(Order order);
    }

    record Payment(String id) {}

    interface PaymentService {
        Payment charge(PaymentRequest request);
    }

    static class Controller {
        PaymentService payments;

        // tag::controller[]
        @PostMapping("/payments")
        ResponseEntity<Payment> pay(@RequestBody PaymentRequest request) {
            Payment p = payments.charge(request);                // runs once per Idempotency-Key
            return ResponseEntity.created(URI.create("/payments/" + p.id())).body(p);
        }
        // end::controller[]
    }

    static class Annotations {
        Payments payments;

        // tag::annotations[]
        @Idempotent(scope = "payments", key = "#request.id", fingerprint = {"#request.amount", "#request.account"})
        public Receipt charge(PaymentRequest request) { return payments.charge(request); }   // duplicates get the stored Receipt

        @DistributedLock(name = "'account:' + #accountId", waitTime = "5s")
        public void credit(long accountId, BigDecimal amount) {
            long token = DistributedLocks.currentLease().fencingToken();   // for fenced writes
            // ...
        }
        // end::annotations[]
    }

    static class ReadReplica {
        // tag::readReplica[]
        @Bean @Primary
        DataSource dataSource(HikariDataSource primary, HikariDataSource replica) {
            AbstractRoutingDataSource routing = new AbstractRoutingDataSource() {
                @Override protected Object determineCurrentLookupKey() {
                    return TransactionSynchronizationManager.isCurrentTransactionReadOnly() ? "replica" : "primary";
                }
            };
            routing.setTargetDataSources(Map.of("primary", primary, "replica", replica));
            routing.setDefaultTargetDataSource(primary);
            routing.afterPropertiesSet();
            return new LazyConnectionDataSourceProxy(routing);     // routes at the first statement
        }
        // end::readReplica[]
    }

    static class Retries {
        Orders orders;
        RetryLog retries;

        // tag::retryLog[]
        @Bean
        RetryTaskHandler notifyOrder(Notifier notifier) {
            return RetryTaskHandler.of("order.notify", task -> notifier.send(task.payloadText(), task.taskKey()),
                    TaskOptions.custom().moneyRelated(false).build());
        }

        @Transactional
        public void place(Order order) {
            orders.insert(order);
            retries.enqueue("order.notify", order.id(), "order-" + order.id());   // commits with the order
        }
        // end::retryLog[]
    }
}
