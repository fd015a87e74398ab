package io.dupguard.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One request sent to every node of a {@link RedlockProvider} at once, and the answers as they
 * arrive. The caller waits until the answers so far decide the outcome (a majority agreed, or a
 * majority can no longer agree), every node answered, or the deadline passed — whichever is first.
 * A node that has not answered by then counts as failed; its request may still run later, which
 * is why every acquisition attempt that does not succeed is followed by a release on every node.
 *
 * <p>Thread-safe: answers arrive on Lettuce's threads.
 */
final class QuorumCall<T> {
    private final List<RedlockNode> nodes;
    private final Object[] values;
    private final Throwable[] errors;
    private final boolean[] done;
    private int outstanding; // guarded by this

    private QuorumCall(List<RedlockNode> nodes) {
        this.nodes = nodes;
        this.values = new Object[nodes.size()];
        this.errors = new Throwable[nodes.size()];
        this.done = new boolean[nodes.size()];
        this.outstanding = nodes.size();
    }

    /** Sends {@code request} to every node without waiting. */
    static <T> QuorumCall<T> send(List<RedlockNode> nodes, Function<RedlockNode, CompletableFuture<T>> request) {
        QuorumCall<T> call = new QuorumCall<>(nodes);
        for (int i = 0; i < nodes.size(); i++) {
            int index = i;
            CompletableFuture<T> f;
            try {
                f = request.apply(nodes.get(i));
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            f.whenComplete((value, error) -> call.answer(index, value, error));
        }
        return call;
    }

    private synchronized void answer(int index, T value, Throwable error) {
        if (done[index]) {
            return;
        }
        done[index] = true;
        values[index] = value;
        errors[index] = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        outstanding--;
        notifyAll();
    }

    /** Waits until {@code decided} holds, every node answered, or {@code deadline} (nanoTime). */
    synchronized QuorumCall<T> await(long deadline, Predicate<QuorumCall<T>> decided) throws InterruptedException {
        long left;
        while (outstanding > 0 && !decided.test(this) && (left = deadline - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return this;
    }

    /** Nodes that answered (without error) with a value matching {@code p}. */
    synchronized int count(Predicate<T> p) {
        int n = 0;
        for (int i = 0; i < done.length; i++) {
            if (answered(i) && p.test(value(i))) {
                n++;
            }
        }
        return n;
    }

    /** Nodes that answered without error. */
    synchronized int answered() {
        return count(v -> true);
    }

    /** Nodes that have not answered yet. */
    synchronized int pending() {
        return outstanding;
    }

    /** Indexes of the nodes that answered with a value matching {@code p}. */
    synchronized List<Integer> indexes(Predicate<T> p) {
        List<Integer> found = new ArrayList<>();
        for (int i = 0; i < done.length; i++) {
            if (answered(i) && p.test(value(i))) {
                found.add(i);
            }
        }
        return found;
    }

    @SuppressWarnings("unchecked") // values[i] was stored from a T
    synchronized T value(int index) {
        return (T) values[index];
    }

    private boolean answered(int i) {
        return done[i] && errors[i] == null;
    }

    /** The nodes that failed or did not answer, with why; for exception messages. */
    synchronized String failures() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < done.length; i++) {
            if (answered(i)) {
                continue;
            }
            Throwable e = errors[i];
            String why = !done[i]
                    ? "no answer in time"
                    : e instanceof CancellationException ? "cancelled" : String.valueOf(e.getMessage());
            s.append(s.length() == 0 ? "" : "; ")
                    .append(nodes.get(i))
                    .append(": ")
                    .append(why);
        }
        return s.toString();
    }
}
