package io.dupguard.console;

class PostgresConsoleIT extends AbstractConsoleIT {
    @Override
    String url() {
        return System.getProperty("dupguard.pg.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    }
}
