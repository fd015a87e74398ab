package io.dupguard.docs;

import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyConfig;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.IdempotencyStore;
import io.dupguard.idempotency.InFlightPolicy;
import io.dupguard.idempotency.Outcome;
import io.dupguard.jdbc.JdbcIdempotencyStore;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;

/** The snippets of README.md. */
class ReadmeSnippets {

    record PaymentRequest(String requestId, String account, BigDecimal amount) {}

    interface Ledger {
        String charge(String account, BigDecimal amount);
    }

    static Outcome<String> quickstart(DataSource dataSource, PaymentRequest request, Ledger ledger) {
        // tag::quickstart[]
        IdempotencyStore store = JdbcIdempotencyStore.builder(dataSource)
                .createSchemaIfMissing(true)              // or apply io/dupguard/jdbc/schema/<dialect>.sql yourself
                .build();
        Idempotency idempotency = Idempotency.of(store, IdempotencyConfig.custom()
                .retention(Duration.ofHours(24))          // how long results are replayed
                .inFlightPolicy(InFlightPolicy.reject())  // duplicate while the first still runs → RequestInFlightException
                .build());

        Outcome<String> out = idempotency.execute(
                IdempotencyKey.of("payments", request.requestId()),                 // scope + business key
                Fingerprint.ofFields(Map.of("account", request.account(), "amount", request.amount())),
                String.class,
                () -> ledger.charge(request.account(), request.amount()));          // runs at most once per key

        out.value();      // the first call's result, for the first call and every retry
        out.isReplay();   // true for retries; same key + different amount → PayloadMismatchException
        // end::quickstart[]
        return out;
    }
}
