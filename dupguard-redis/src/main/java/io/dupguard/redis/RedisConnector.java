package io.dupguard.redis;

import io.dupguard.StoreUnavailableException;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One shared Lettuce connection to standalone (or Sentinel-managed) Redis or to a Redis Cluster,
 * opened lazily on first use, plus script execution. Shared by the Redis backends of this module.
 *
 * <p>Why lazy: a service must be able to build its stores while Redis is still down; the outage
 * then shows as {@link StoreUnavailableException} on the first call instead of a failed startup.
 * Why one connection: Lettuce connections are thread-safe and multiplex commands, so one per
 * process is enough (and what Lettuce recommends for non-blocking commands).
 *
 * <p>Both {@code RedisCommands} and {@code RedisAdvancedClusterCommands} extend {@link
 * RedisClusterCommands}, so the callers see one command interface whatever the topology. Keys are
 * UTF-8 strings, values raw bytes.
 *
 * <p>Every Lettuce failure (connect, timeout, server error) becomes a {@link
 * StoreUnavailableException}; a NOSCRIPT answer to {@code EVALSHA} is retried once with {@code EVAL},
 * which also puts the script back into the server's cache. Thread-safe.
 */
final class RedisConnector implements AutoCloseable {
    static final String STORE = "redis";
    static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

    /**
     * An open connection and its sync commands (the same object for both topologies' callers);
     * {@code drops} counts how often the connections {@code owner} hands out lost their socket.
     */
    record Open(
            StatefulConnection<String, byte[]> connection,
            RedisClusterCommands<String, byte[]> commands,
            RedisClusterAsyncCommands<String, byte[]> async,
            Function<String, RedisClusterCommands<String, byte[]>> owner,
            Drops drops,
            Runnable refreshSlots) {}

    /**
     * How often the watched connections lost their socket. Lettuce reconnects a connection by itself
     * and re-sends the commands that had not been answered: a {@code WAIT} re-sent on the new socket
     * counts the writes sent on that socket, not on the one before the drop. A drop seen between a write and its {@code
     * WAIT} makes the acknowledgement unknown.
     */
    static final class Drops implements RedisConnectionStateListener {
        private final AtomicLong count = new AtomicLong();
        private final Set<RedisChannelHandler<?, ?>> watched = ConcurrentHashMap.newKeySet();

        /** Counts the drops of {@code c} from now on (once per connection, however often asked). */
        void watch(StatefulConnection<?, ?> c) {
            if (c instanceof RedisChannelHandler<?, ?> h && watched.add(h)) {
                h.addListener(this);
            }
        }

        long count() {
            return count.get();
        }

        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            count.incrementAndGet();
        }
    }

    private final Supplier<Open> opener;
    private final Object lock = new Object();
    private volatile Open open;
    // Guarded by lock. Threads that queued behind a failed connect attempt get its failure instead
    // of each waiting a full connect timeout again.
    private volatile long failedAttempts;
    private RedisException lastFailure;
    private boolean closed;
    private volatile EvictionPolicyCheck evictionCheck = EvictionPolicyCheck.REFUSE;
    private final ConnectionPool<Open> forWait;

    private final boolean clustered;

    private RedisConnector(Supplier<Open> opener, boolean clustered) {
        this.opener = opener;
        this.clustered = clustered;
        this.forWait =
                new ConnectionPool<>(this::openChecked, o -> o.connection().close());
    }

    /**
     * Whether the keys are spread over a Redis Cluster's nodes (else one server, standalone or
     * Sentinel-managed, holds them all and a script may touch any of them).
     */
    boolean clustered() {
        return clustered;
    }

    /** Sets what happens when the server may evict keys; call before the first command. */
    RedisConnector evictionCheck(EvictionPolicyCheck check) {
        this.evictionCheck = Objects.requireNonNull(check, "evictionPolicyCheck");
        return this;
    }

    /** Standalone or Sentinel: {@code uri} may be null to use the client's default URI. */
    static RedisConnector standalone(RedisClient client, RedisURI uri) {
        Objects.requireNonNull(client, "client");
        return new RedisConnector(
                () -> {
                    StatefulRedisConnection<String, byte[]> c =
                            uri == null ? client.connect(CODEC) : client.connect(CODEC, uri);
                    RedisClusterCommands<String, byte[]> sync = c.sync();
                    Drops drops = new Drops();
                    drops.watch(c);
                    return new Open(c, sync, c.async(), key -> sync, drops, () -> {});
                },
                false);
    }

    /** Redis Cluster, from the client's seed URIs. */
    static RedisConnector cluster(RedisClusterClient client) {
        Objects.requireNonNull(client, "client");
        return new RedisConnector(
                () -> {
                    StatefulRedisClusterConnection<String, byte[]> c = client.connect(CODEC);
                    Drops drops = new Drops();
                    return new Open(
                            c, c.sync(), c.async(), key -> masterOf(c, key, drops), drops, client::refreshPartitions);
                },
                true);
    }

    /**
     * Runs {@code script} on the node owning {@code key} ({@code EVALSHA}, then {@code EVAL} on
     * NOSCRIPT). A script with one key runs on Redis Cluster as is.
     */
    <T> T eval(RedisScript script, ScriptOutputType type, String key, byte[]... args) {
        return eval(script, type, new String[] {key}, args);
    }

    /**
     * Runs {@code script} with several keys, routed by the first. On Redis Cluster all keys must
     * share one hash slot (one hash tag), or the server refuses the script with CROSSSLOT.
     */
    <T> T eval(RedisScript script, ScriptOutputType type, String[] keys, byte[]... args) {
        return call(script.name(), c -> run(c, script, type, keys, args));
    }

    /**
     * {@link #eval(RedisScript, ScriptOutputType, String[], byte[]...)} followed, if {@code wrote}
     * says the script wrote, by {@code WAIT} as {@link #callAcked} describes; {@code acks} null: no
     * {@code WAIT}.
     */
    <T> T evalAcked(
            RedisScript script,
            ScriptOutputType type,
            String[] keys,
            ReplicaAcks acks,
            Predicate<T> wrote,
            Consumer<RedisClusterCommands<String, byte[]>> withdraw,
            byte[]... args) {
        return callAcked(script.name(), keys[0], acks, c -> run(c, script, type, keys, args), wrote, withdraw);
    }

    /** Runs {@code script} on {@code c} ({@code EVALSHA}, then {@code EVAL} on NOSCRIPT): for a withdrawal. */
    static <T> T evalOn(
            RedisClusterCommands<String, byte[]> c,
            RedisScript script,
            ScriptOutputType type,
            String[] keys,
            byte[]... args) {
        return run(c, script, type, keys, args);
    }

    private static <T> T run(
            RedisClusterCommands<String, byte[]> c,
            RedisScript script,
            ScriptOutputType type,
            String[] keys,
            byte[]... args) {
        try {
            return c.evalsha(script.sha1(), type, keys, args);
        } catch (RedisNoScriptException e) {
            // Server restarted, failed over or ran SCRIPT FLUSH: EVAL runs and re-caches it.
            return c.eval(script.source(), type, keys, args);
        }
    }

    /**
     * Runs the write {@code op} on a connection of the caller's own (from a pool: a {@code WAIT}
     * would hold back every other thread's commands on the shared connection) to the master that
     * owns {@code key} and, if {@code wrote} says it wrote, sends {@code WAIT replicas timeout} on
     * that same connection: Redis counts the replicas that have acknowledged every write this
     * connection sent so far. Fewer than {@code
     * acks.replicas()} (or a {@code WAIT} that fails) runs {@code withdraw} on the shared connection
     * (best effort: its own failure is added as suppressed) and throws {@link
     * StoreUnavailableException}: the write is not known to be on any replica, so a failover could
     * lose it. {@code acks} null: {@link #call}. So does a connection that dropped during the call
     * ({@link Drops}): its {@code WAIT}, re-sent on a new socket, would have counted nothing.
     *
     * <p>An {@code op} that fails (a command timeout: the write may still be queued, and run when
     * the server gets to it) runs {@code withdraw} on the write's own connection, so that Redis runs
     * the withdrawal after the write, never before it: sent on another connection it could arrive
     * first, find nothing, and leave the late write to hold its key.
     *
     * <p>Every script whose repetition finds its own write done (a completion, a renewal, a lock or
     * claim taken again by the same owner) writes again (it resets the expiry), so the {@code WAIT}
     * after it counts the replicas that have the record, whichever pooled connection it travels on.
     *
     * <p>On Redis Cluster the write and its {@code WAIT} both go to the slot owner's own node
     * connection, so they share a connection whatever the cluster connection's routing does; a
     * write to a slot being moved is then refused with {@code MOVED} (an outage to retry).
     */
    <T> T callAcked(
            String what,
            String key,
            ReplicaAcks acks,
            Function<RedisClusterCommands<String, byte[]>, T> op,
            Predicate<T> wrote,
            Consumer<RedisClusterCommands<String, byte[]>> withdraw) {
        if (acks == null) {
            return call(what, op);
        }
        T value;
        String why;
        RedisException failure = null;
        Open dedicated;
        try {
            dedicated = forWait.borrow();
        } catch (RedisException e) {
            throw cannotConnect(e);
        }
        try {
            RedisClusterCommands<String, byte[]> node;
            try {
                node = dedicated.owner().apply(key);
            } catch (RedisException e) {
                throw new StoreUnavailableException(STORE, what + " failed: " + e.getMessage(), e);
            }
            long drops = dedicated.drops().count();
            try {
                try {
                    value = op.apply(node);
                } catch (RedisException e) {
                    if (!moved(e)) {
                        throw e;
                    }
                    // A Cluster failover or slot move the slot map has not caught up with (Lettuce
                    // refreshes it neither periodically nor on MOVED by default): the node refused
                    // the write without running it. Refresh the map and write to the slot's owner now.
                    dedicated.refreshSlots().run();
                    node = dedicated.owner().apply(key);
                    drops = dedicated.drops().count();
                    value = op.apply(node);
                }
            } catch (RedisException e) {
                StoreUnavailableException unknown =
                        new StoreUnavailableException(STORE, what + " failed: " + e.getMessage(), e);
                try {
                    withdraw.accept(node); // queued behind the write, which may still run
                } catch (RuntimeException withdrawal) {
                    unknown.addSuppressed(withdrawal);
                }
                throw unknown;
            }
            if (!wrote.test(value)) {
                return value;
            }
            try {
                Long acked = node.waitForReplication(acks.replicas(), acks.timeoutMillis());
                long count = acked == null ? 0 : acked;
                if (dedicated.drops().count() != drops) {
                    why = "the connection was re-established between the write and its WAIT, which then"
                            + " counted the writes of the new connection only";
                } else if (count >= acks.replicas()) {
                    return value;
                } else {
                    why = "acknowledged by " + count + " of " + acks;
                }
            } catch (RedisException e) {
                failure = e;
                why = "WAIT for " + acks + " failed: " + e.getMessage();
            }
        } finally {
            forWait.giveBack(dedicated);
        }
        StoreUnavailableException notDurable = new StoreUnavailableException(
                STORE, what + " on " + key + " not replicated (" + why + "); withdrawn", failure);
        try {
            // The write was answered: the shared connection, not one held up by the WAIT.
            call("withdraw " + what, c -> {
                withdraw.accept(c);
                return null;
            });
        } catch (RuntimeException e) {
            notDurable.addSuppressed(e);
        }
        throw notDurable;
    }

    /** Whether a node refused a command because another node owns its slot ({@code MOVED slot host:port}). */
    private static boolean moved(RedisException e) {
        String message = e.getMessage();
        return message != null && message.startsWith("MOVED ");
    }

    /** The sync commands of the node connection to the master owning {@code key}'s slot. */
    private static RedisClusterCommands<String, byte[]> masterOf(
            StatefulRedisClusterConnection<String, byte[]> c, String key, Drops drops) {
        RedisClusterNode master = c.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
        if (master == null) {
            throw new RedisException("no master known for the slot of " + key);
        }
        StatefulRedisConnection<String, byte[]> node =
                c.getConnection(master.getUri().getHost(), master.getUri().getPort());
        drops.watch(node);
        return node.sync();
    }

    /**
     * Sends {@code script} like {@link #eval(RedisScript, ScriptOutputType, String[], byte[]...)}, runs
     * {@code sent} once the command is on its way, then waits for the answer. Lettuce writes the
     * commands of one connection in the order they are issued and Redis runs them in that order, so
     * whatever {@code sent} lets another thread send runs after this script. {@code sent} runs
     * exactly once, whatever happens.
     */
    <T> T evalThen(RedisScript script, ScriptOutputType type, String[] keys, Runnable sent, byte[]... args) {
        RedisFuture<T> future;
        Open current;
        try {
            current = open();
            future = current.async().evalsha(script.sha1(), type, keys, args);
        } catch (RuntimeException e) {
            sent.run();
            throw e instanceof RedisException re
                    ? new StoreUnavailableException(STORE, script.name() + " failed: " + e.getMessage(), re)
                    : e;
        }
        sent.run();
        try {
            return future.get(current.connection().getTimeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RedisNoScriptException) {
                return eval(script, type, keys, args);
            }
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new StoreUnavailableException(STORE, script.name() + " failed: " + cause.getMessage(), cause);
        } catch (TimeoutException e) {
            future.cancel(false);
            throw new StoreUnavailableException(
                    STORE,
                    script.name() + " timed out after " + current.connection().getTimeout(),
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException(STORE, script.name() + " interrupted while waiting for Redis", e);
        }
    }

    /**
     * Sends {@code script} on the shared connection and returns without waiting: a command this
     * thread sends next on the connection runs after it, and its answer comes back behind this one's.
     * The stage completes with the script's answer, or exceptionally with a {@link
     * StoreUnavailableException} (the cause Lettuce's: a timeout after the connection's command
     * timeout, a refused or dropped connection). A NOSCRIPT answer sends it again as {@code EVAL}.
     */
    <T> java.util.concurrent.CompletableFuture<T> evalAsync(
            RedisScript script, ScriptOutputType type, String[] keys, byte[]... args) {
        java.util.concurrent.CompletableFuture<T> answer = new java.util.concurrent.CompletableFuture<>();
        RedisClusterAsyncCommands<String, byte[]> async;
        RedisFuture<T> sent;
        try {
            async = open().async();
            sent = async.evalsha(script.sha1(), type, keys, args);
        } catch (RedisException e) {
            answer.completeExceptionally(
                    new StoreUnavailableException(STORE, script.name() + " failed: " + e.getMessage(), e));
            return answer;
        }
        sent.whenComplete((value, failed) -> {
            if (failed == null) {
                answer.complete(value);
            } else if (failed instanceof RedisNoScriptException) {
                async.<T>eval(script.source(), type, keys, args).whenComplete((again, failedAgain) -> {
                    if (failedAgain == null) {
                        answer.complete(again);
                    } else {
                        answer.completeExceptionally(unavailable(script, failedAgain));
                    }
                });
            } else {
                answer.completeExceptionally(unavailable(script, failed));
            }
        });
        return answer;
    }

    private static StoreUnavailableException unavailable(RedisScript script, Throwable cause) {
        return new StoreUnavailableException(STORE, script.name() + " failed: " + cause.getMessage(), cause);
    }

    /**
     * Sends one command per element of {@code ops} on the shared connection without waiting, then
     * waits for every answer: a batch pipelined into one round trip of latency (on Redis Cluster,
     * Lettuce sends each command to its slot's node, the nodes answering in parallel). A script
     * answered with NOSCRIPT is sent again as {@code EVAL} on its own. Any failure throws {@link
     * StoreUnavailableException} once every answer has arrived (some commands may have run).
     */
    <T> List<T> pipeline(String what, List<Function<RedisClusterAsyncCommands<String, byte[]>, RedisFuture<T>>> ops) {
        Open current = open();
        List<RedisFuture<T>> futures = new ArrayList<>(ops.size());
        try {
            for (Function<RedisClusterAsyncCommands<String, byte[]>, RedisFuture<T>> op : ops) {
                futures.add(op.apply(current.async()));
            }
        } catch (RedisException e) {
            throw new StoreUnavailableException(STORE, what + " failed: " + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + current.connection().getTimeout().toNanos();
        List<T> answers = new ArrayList<>(futures.size());
        RuntimeException failure = null;
        for (RedisFuture<T> f : futures) {
            try {
                answers.add(f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                answers.add(null);
                if (failure == null) {
                    failure = new StoreUnavailableException(STORE, what + " failed: " + cause.getMessage(), cause);
                }
            } catch (TimeoutException e) {
                f.cancel(false);
                answers.add(null);
                if (failure == null) {
                    failure = new StoreUnavailableException(
                            STORE,
                            what + " timed out after " + current.connection().getTimeout(),
                            e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new StoreUnavailableException(STORE, what + " interrupted while waiting for Redis", e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return answers;
    }

    /**
     * {@link #pipeline} of one script per key ({@code EVALSHA}; a NOSCRIPT answer sends the whole
     * batch again with {@code EVAL}, which re-caches the script: the scripts are idempotent per owner).
     */
    <T> List<T> pipelineScript(RedisScript script, ScriptOutputType type, List<String> keys, List<byte[][]> args) {
        List<Function<RedisClusterAsyncCommands<String, byte[]>, RedisFuture<T>>> ops = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            String[] key = {keys.get(i)};
            byte[][] a = args.get(i);
            ops.add(c -> c.evalsha(script.sha1(), type, key, a));
        }
        try {
            return pipeline(script.name(), ops);
        } catch (StoreUnavailableException e) {
            if (!(e.getCause() instanceof RedisNoScriptException)) {
                throw e;
            }
        }
        ops.clear();
        for (int i = 0; i < keys.size(); i++) {
            String[] key = {keys.get(i)};
            byte[][] a = args.get(i);
            ops.add(c -> c.eval(script.source(), type, key, a));
        }
        return pipeline(script.name(), ops);
    }

    /** Runs {@code op} on the shared connection; {@code what} names it in the error message. */
    <T> T call(String what, Function<RedisClusterCommands<String, byte[]>, T> op) {
        RedisClusterCommands<String, byte[]> commands = commands();
        try {
            return op.apply(commands);
        } catch (RedisException e) {
            throw new StoreUnavailableException(STORE, what + " failed: " + e.getMessage(), e);
        }
    }

    private RedisClusterCommands<String, byte[]> commands() {
        return open().commands();
    }

    private Open open() {
        Open current = open;
        if (current != null) {
            return current;
        }
        long failuresSeen = failedAttempts;
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("the Redis store was closed");
            }
            if (open == null) {
                if (failedAttempts != failuresSeen) {
                    throw cannotConnect(lastFailure);
                }
                try {
                    open = openChecked();
                } catch (RedisException e) {
                    lastFailure = e;
                    failedAttempts++;
                    throw cannotConnect(e);
                }
            }
            return open;
        }
    }

    /** A new connection, refused (and closed) if the server may evict keys. */
    private Open openChecked() {
        Open opened = opener.get();
        try {
            EvictionPolicies.check(opened.connection(), evictionCheck);
        } catch (RuntimeException refused) {
            opened.connection().close();
            throw refused;
        }
        return opened;
    }

    private static StoreUnavailableException cannotConnect(RedisException cause) {
        return new StoreUnavailableException(STORE, "cannot connect: " + cause.getMessage(), cause);
    }

    /** Closes the connection if one was opened (never the client, which the caller owns). */
    @Override
    public void close() {
        Open toClose;
        synchronized (lock) {
            closed = true;
            toClose = open;
            open = null;
        }
        if (toClose != null) {
            toClose.connection().close();
        }
        forWait.close();
    }
}
