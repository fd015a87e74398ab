package io.dupguard.bench;

import io.dupguard.jdbc.SqlDialect;

/** The database-time expressions the hand-written SQL rows use, per dialect (as dupguard's). */
final class SqlTime {
    private SqlTime() {}

    static String now(SqlDialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> "clock_timestamp()";
            case MYSQL -> "UTC_TIMESTAMP(6)";
            case H2 -> "CURRENT_TIMESTAMP";
        };
    }

    /** Now plus a millisecond count bound as the next parameter. */
    static String nowPlusMillis(SqlDialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> "(clock_timestamp() + (? * INTERVAL '1 millisecond'))";
            case MYSQL -> "(UTC_TIMESTAMP(6) + INTERVAL (? * 1000) MICROSECOND)";
            case H2 -> "DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP)";
        };
    }
}
