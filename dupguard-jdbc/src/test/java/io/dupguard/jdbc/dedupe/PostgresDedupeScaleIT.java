package io.dupguard.jdbc.dedupe;

import io.dupguard.jdbc.Lanes;
import io.dupguard.jdbc.SqlDialect;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

@Execution(ExecutionMode.CONCURRENT) // in the PostgreSQL clean-up lane: see Lanes
@ResourceLock(Lanes.POSTGRES_DEDUPE)
class PostgresDedupeScaleIT extends DedupeScaleContract {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }

    @Override
    void load(Statement s) throws SQLException {
        s.execute("INSERT INTO " + TABLE + " (open_id, local_identifier, created_at) SELECT 'oid-' || g, 'li-' || g,"
                + " TIMESTAMP '2026-01-01 00:00:00' + g * INTERVAL '1 second' FROM generate_series(1, " + BASE
                + ") g");
        s.execute("INSERT INTO " + TABLE + " (open_id, local_identifier, created_at) SELECT CASE WHEN e % 3 = 0"
                + " THEN UPPER('oid-' || (g * 80)) ELSE 'oid-' || (g * 80) END, 'li-' || (g * 80),"
                + " TIMESTAMP '2026-06-01 00:00:00' + g * INTERVAL '1 second' + e * INTERVAL '1 millisecond'"
                + " FROM generate_series(1, " + GROUPS + ") g, generate_series(1, 4) e WHERE e <= 1 + g % 4");
        s.execute("CREATE INDEX " + TABLE + "_open_id ON " + TABLE + " (LOWER(open_id))");
        s.execute("ANALYZE " + TABLE);
    }

    @Override
    String lookup() {
        return "LOWER(open_id) = LOWER(?)";
    }

    @Override
    String sameKey(String a, String b) {
        return "LOWER(" + a + ".open_id) = LOWER(" + b + ".open_id)";
    }
}
