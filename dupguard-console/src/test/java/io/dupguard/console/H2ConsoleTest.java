package io.dupguard.console;

class H2ConsoleTest extends AbstractConsoleIT {
    @Override
    String url() {
        return "jdbc:h2:mem:console" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
    }
}
