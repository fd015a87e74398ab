package io.dupguard.console;

class MariaDbConsoleIT extends AbstractConsoleIT {
    @Override
    String url() {
        return System.getProperty("dupguard.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test?user=root");
    }
}
