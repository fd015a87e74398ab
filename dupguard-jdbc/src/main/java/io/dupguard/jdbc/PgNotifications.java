package io.dupguard.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A daemon thread holding one pooled connection that LISTENs on a PostgreSQL channel and calls back
 * on every notification. After losing the connection it reconnects with a growing pause and calls
 * back once, since notifications sent meanwhile are lost; the workers' polling covers the gap.
 */
final class PgNotifications implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PgNotifications.class);
    private static final int WAIT_MILLIS = 250;

    private final JdbcAccess access;
    private final String channel;
    private final Runnable onNotify;
    private final Thread thread;
    private volatile boolean closed;

    private PgNotifications(JdbcAccess access, String channel, Runnable onNotify) {
        this.access = access;
        this.channel = channel;
        this.onNotify = onNotify;
        this.thread = new Thread(this::loop, "dupguard-retry-listen-" + channel);
        thread.setDaemon(true);
    }

    static PgNotifications start(JdbcAccess access, String channel, Runnable onNotify) {
        PgNotifications n = new PgNotifications(access, channel, onNotify);
        n.thread.start();
        return n;
    }

    private void loop() {
        long pauseMillis = 100;
        while (!closed) {
            try (Connection c = access.dataSource().getConnection()) {
                listen(c);
                pauseMillis = 100;
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    return;
                }
                LOG.warn(
                        "listening for retry task notifications on '{}' failed; reconnecting in {} ms: {}",
                        channel,
                        pauseMillis,
                        e.toString());
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pauseMillis));
                pauseMillis = Math.min(pauseMillis * 2, 10_000);
            }
        }
    }

    private void listen(Connection c) throws SQLException {
        if (!c.getAutoCommit()) {
            c.setAutoCommit(true);
        }
        try (Statement st = c.createStatement()) {
            st.execute("LISTEN \"" + channel + "\"");
        }
        try {
            onNotify.run(); // tasks enqueued while nobody listened
            PGConnection pg = c.unwrap(PGConnection.class);
            while (!closed) {
                PGNotification[] received = pg.getNotifications(WAIT_MILLIS);
                if (received != null && received.length > 0) {
                    onNotify.run();
                }
            }
        } finally {
            try (Statement st = c.createStatement()) {
                st.execute("UNLISTEN *"); // the connection goes back to the pool
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
