package io.dupguard.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One independent Redis server of a {@link RedlockProvider}: a lazily opened connection and
 * asynchronous commands, so the provider can ask every node at once and wait for all of them with
 * one deadline.
 *
 * <p>Why asynchronous connect: a node that is down must cost an acquisition at most the node
 * timeout, never a blocking connect timeout. A failed connect is retried by the next command.
 * Thread-safe.
 */
final class RedlockNode implements AutoCloseable {
    private final RedisClient client;
    private final RedisURI uri;
    private final Object lock = new Object();
    // Written under lock; volatile so that the usual "already connected" check takes no lock.
    private volatile CompletableFuture<StatefulRedisConnection<String, byte[]>> connection;
    private boolean closed; // guarded by lock

    RedlockNode(RedisClient client, RedisURI uri) {
        this.client = client;
        this.uri = uri;
    }

    /** {@code host:port}, for messages. */
    String address() {
        return uri.getHost() + ":" + uri.getPort();
    }

    /** {@code EVALSHA}, then {@code EVAL} on NOSCRIPT (a restarted node forgot the script). */
    <T> CompletableFuture<T> eval(RedisScript script, ScriptOutputType type, String[] keys, byte[]... args) {
        return connection().thenCompose(c -> {
            RedisAsyncCommands<String, byte[]> commands = c.async();
            CompletableFuture<T> sha =
                    commands.<T>evalsha(script.sha1(), type, keys, args).toCompletableFuture();
            return sha.exceptionallyCompose(e -> unwrap(e) instanceof RedisNoScriptException
                    ? commands.<T>eval(script.source(), type, keys, args).toCompletableFuture()
                    : CompletableFuture.failedFuture(unwrap(e)));
        });
    }

    CompletableFuture<byte[]> get(String key) {
        return connection().thenCompose(c -> c.async().get(key).toCompletableFuture());
    }

    /** Whether the connection is open, so a request goes out at once. */
    boolean connected() {
        CompletableFuture<StatefulRedisConnection<String, byte[]>> c = connection;
        return c != null && c.isDone() && !c.isCompletedExceptionally();
    }

    /** Opens the connection if needed; completes when it is open. */
    CompletableFuture<StatefulRedisConnection<String, byte[]>> connection() {
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("the Redlock provider was closed"));
            }
            if (connection == null || connection.isCompletedExceptionally()) {
                connection = client.connectAsync(RedisConnector.CODEC, uri).toCompletableFuture();
            }
            return connection;
        }
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /** Closes the connection (when it is open, if it is still opening); never the client. */
    @Override
    public void close() {
        CompletableFuture<StatefulRedisConnection<String, byte[]>> c;
        synchronized (lock) {
            closed = true;
            c = connection;
            connection = null;
        }
        if (c != null && c.isDone() && !c.isCompletedExceptionally()) {
            c.join().close(); // synchronously, so that shutting the client down right after is quiet
        } else if (c != null) {
            c.thenAccept(StatefulRedisConnection::closeAsync);
        }
    }

    @Override
    public String toString() {
        return address();
    }
}
