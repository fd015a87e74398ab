package io.dupguard.docs;

import io.dupguard.jdbc.dedupe.ApplyResult;
import io.dupguard.jdbc.dedupe.Comparison;
import io.dupguard.jdbc.dedupe.Dedupe;
import io.dupguard.jdbc.dedupe.GuardResult;
import io.dupguard.jdbc.dedupe.Keep;
import io.dupguard.jdbc.dedupe.Rate;
import io.dupguard.jdbc.dedupe.ScanReport;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The snippets of docs/dedupe.md. */
class DedupeSnippets {

    private static final Logger log = LoggerFactory.getLogger(DedupeSnippets.class);

    private volatile boolean shuttingDown;

    void library(DataSource dataSource) {
        // tag::library[]
        Dedupe dedupe = Dedupe.builder(dataSource)
                .table("t_account").key("open_id")
                .compare(Comparison.IGNORE_CASE)
                .keep(Keep.oldest("created_at"))
                .mergeCheck(List.of("local_identifier"))
                .rate(Rate.parse("1000keys/min"))         // 1000 keys a minute; Rate.UNLIMITED for none
                .build();                                 // immutable, thread-safe

        ScanReport report = dedupe.scan();                // read-only
        ApplyResult applied = dedupe.apply(progress -> log.info("{}", progress), () -> shuttingDown);
        GuardResult guard = dedupe.guard();               // guard.valid() is the only success
        dedupe.restore(applied.runId());
        // end::library[]
    }
}
