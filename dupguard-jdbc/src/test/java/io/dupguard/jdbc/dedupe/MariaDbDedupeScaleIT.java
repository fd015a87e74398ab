package io.dupguard.jdbc.dedupe;

import io.dupguard.jdbc.Lanes;
import io.dupguard.jdbc.SqlDialect;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

@Execution(ExecutionMode.CONCURRENT) // in the MariaDB lane: see Lanes
@ResourceLock(Lanes.MARIADB)
class MariaDbDedupeScaleIT extends DedupeScaleContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.MYSQL;
    }

    @Override
    void load(Statement s) throws SQLException {
        s.execute("INSERT INTO " + TABLE + " (open_id, local_identifier, created_at) SELECT CONCAT('oid-', seq),"
                + " CONCAT('li-', seq), TIMESTAMP '2026-01-01 00:00:00' + INTERVAL seq SECOND FROM seq_1_to_" + BASE);
        s.execute("INSERT INTO " + TABLE + " (open_id, local_identifier, created_at) SELECT CASE WHEN e.seq % 3 = 0"
                + " THEN UPPER(CONCAT('oid-', g.seq * 80)) ELSE CONCAT('oid-', g.seq * 80) END,"
                + " CONCAT('li-', g.seq * 80), TIMESTAMP '2026-06-01 00:00:00' + INTERVAL g.seq SECOND"
                + " + INTERVAL e.seq * 1000 MICROSECOND FROM seq_1_to_" + GROUPS + " g JOIN seq_1_to_4 e"
                + " ON e.seq <= 1 + g.seq % 4");
        // The service's lookup index; under the column's case-insensitive collation it finds DB00x for Db00X.
        s.execute("CREATE INDEX " + TABLE + "_open_id ON " + TABLE + " (open_id)");
        s.execute("ANALYZE TABLE " + TABLE);
    }

    @Override
    String lookup() {
        return "open_id = ?";
    }

    @Override
    String sameKey(String a, String b) {
        return a + ".open_id = " + b + ".open_id";
    }
}
