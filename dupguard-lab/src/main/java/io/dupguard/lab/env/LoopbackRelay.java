package io.dupguard.lab.env;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay on a free loopback port to one server address, for a client whose machine the lab
 * kills: {@link #cut()} drops every relayed connection at once (a reset, nothing flushed) and
 * refuses new ones, so nothing the client sends after that moment reaches the server — not a
 * close, not a reconnect, not a delete from a timer still running in this JVM. What it sent before
 * the cut has either arrived or is lost with the machine.
 *
 * <p>Used where a client library would otherwise talk on after a simulated crash: Curator, whose
 * session the lab cannot end without either telling the server (a graceful close, not a crash) or
 * letting the client open a new session and go on.
 *
 * <p>{@link #partition()} is a network partition instead: no socket is closed or reset, nothing
 * passes either way. Bytes either side sends are held (as TCP holds unacknowledged segments), and
 * so is a close (the other side learns of it after the heal); a connection attempt completes the
 * TCP handshake in the listener's backlog but is neither accepted nor relayed, so the client's commands and connects hang until its own timeouts. {@link #heal()}
 * delivers what was held, in order, and relays again.
 */
final class LoopbackRelay implements AutoCloseable {
    private static final int CONNECT_TIMEOUT_MS = 5_000;

    private final ServerSocket listener;
    private final InetSocketAddress server;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;
    private final Object gate = new Object();
    private volatile boolean partitioned;
    private final AtomicLong held = new AtomicLong();

    private LoopbackRelay(ServerSocket listener, InetSocketAddress server) {
        this.listener = listener;
        this.server = server;
    }

    /** Starts relaying a free loopback port to {@code host:port}. */
    static LoopbackRelay to(String host, int port) throws IOException {
        ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        LoopbackRelay relay = new LoopbackRelay(listener, new InetSocketAddress(host, port));
        daemon("dupguard-lab-relay-accept-" + listener.getLocalPort(), relay::accept)
                .start();
        return relay;
    }

    /** Where clients connect: {@code 127.0.0.1:port}. */
    String address() {
        return listener.getInetAddress().getHostAddress() + ":" + listener.getLocalPort();
    }

    private void accept() {
        while (!cut) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException closed) {
                return;
            }
            Socket upstream = new Socket();
            try {
                open.add(client);
                open.add(upstream);
                untilHealed(); // accepted during a partition: relayed from the heal on
                upstream.connect(server, CONNECT_TIMEOUT_MS);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                if (cut) {
                    throw new IOException("cut");
                }
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                drop(client);
                drop(upstream);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        daemon("dupguard-lab-relay-" + from.getLocalPort() + ">" + to.getPort(), () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try {
                        InputStream in = from.getInputStream();
                        OutputStream out = to.getOutputStream();
                        for (int n; (n = in.read(buffer)) >= 0; ) {
                            if (partitioned) {
                                held.addAndGet(n);
                            }
                            untilHealed();
                            out.write(buffer, 0, n);
                        }
                        untilHealed(); // a close does not cross a partition either
                    } catch (IOException e) {
                        // cut, or one side went away: the other goes too
                    } finally {
                        drop(from);
                        drop(to);
                    }
                })
                .start();
    }

    /**
     * A network partition between the client and the server from now on: nothing is forwarded
     * either way and no new connection is relayed, but no socket is closed or reset.
     */
    void partition() {
        partitioned = true;
    }

    /** Ends a {@link #partition()}: what was held is delivered, and new connections are relayed. */
    void heal() {
        synchronized (gate) {
            partitioned = false;
            gate.notifyAll();
        }
    }

    /** Bytes that arrived during a partition and were held back (either direction). */
    long heldBytes() {
        return held.get();
    }

    /** Blocks while partitioned; {@link IOException} if the relay is cut meanwhile. */
    private void untilHealed() throws IOException {
        synchronized (gate) {
            while (partitioned && !cut) {
                try {
                    gate.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted during a partition", e);
                }
            }
        }
        if (cut) {
            throw new IOException("cut");
        }
    }

    /** The machine dies: every connection is reset now and the port refuses new ones. */
    void cut() {
        cut = true;
        synchronized (gate) {
            gate.notifyAll();
        }
        try {
            listener.close();
        } catch (IOException e) {
            // closed already
        }
        for (Socket s : open) {
            try {
                s.setSoLinger(true, 0); // a reset: nothing still buffered is sent
            } catch (IOException e) {
                // closed already
            }
            drop(s);
        }
    }

    private void drop(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException e) {
            // closed already
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public void close() {
        cut();
    }
}
