package io.dupguard.lab.storm;

import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;

/**
 * One logical request as its client sees it: how many attempts went out, how many came back, and
 * the first successful answer, against which every later answer is compared.
 */
final class Exchange {
    final Request request;
    final int client;
    final long seq;

    private int sent;
    private int finished;
    private int refusals;
    private boolean acknowledged;
    private Object first;
    private long ackNanos;
    private boolean cutByCrash;

    Exchange(Request request, int client, long seq) {
        this.request = request;
        this.client = client;
        this.seq = seq;
    }

    /** Counts one more attempt and returns its number, from 0. */
    synchronized int nextAttempt() {
        return sent++;
    }

    synchronized int sent() {
        return sent;
    }

    /**
     * Records a successful answer.
     *
     * @param agree whether a later answer is consistent with the first
     * @return true if an earlier answer was different (a replay that does not match)
     */
    synchronized boolean succeeded(Object value, long nowNanos, BiPredicate<Object, Object> agree) {
        finished++;
        boolean differs = false;
        if (!acknowledged) {
            acknowledged = true;
            first = value;
            ackNanos = nowNanos;
        } else {
            differs = !agree.test(first, value);
        }
        notifyAll();
        return differs;
    }

    synchronized void failed() {
        finished++;
        notifyAll();
    }

    synchronized void refused() {
        refusals++;
        failed();
    }

    /** Waits until acknowledged, every attempt sent so far has finished, or the deadline passes. */
    synchronized void awaitUntil(long deadlineNanos) throws InterruptedException {
        while (!acknowledged && finished < sent) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    synchronized boolean acknowledged() {
        return acknowledged;
    }

    /** Marks that an attempt of this request died with the instance serving it. */
    synchronized void cutByCrash(boolean cut) {
        cutByCrash |= cut;
    }

    synchronized boolean cutByCrash() {
        return cutByCrash;
    }

    synchronized long ackNanos() {
        return ackNanos;
    }

    synchronized Sent toSent() {
        return new Sent(request, acknowledged, first, refusals);
    }
}
