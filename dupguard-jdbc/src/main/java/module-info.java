/**
 * dupguard on JDBC (H2, PostgreSQL, MySQL/MariaDB): every store of the core API, {@code Fence},
 * {@code CreateOnce}, {@code JdbcTransitions}, {@code Cas}, and the duplicate clean-up ({@code
 * io.dupguard.jdbc.dedupe}). The drivers are the application's; the PostgreSQL driver is read only
 * when present (LISTEN/NOTIFY wake-ups).
 */
module io.dupguard.jdbc {
    requires transitive io.dupguard.core;
    requires transitive java.sql;
    requires org.slf4j;
    requires static org.postgresql.jdbc;

    exports io.dupguard.jdbc;
    exports io.dupguard.jdbc.dedupe;
}
