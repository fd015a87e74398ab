package io.dupguard.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP forwarder in front of a database, for outage tests: {@link #down()} closes every
 * forwarded connection (the server seems to die) and refuses new ones; {@link #up()} listens again
 * on the same port.
 */
final class TcpProxy implements AutoCloseable {
    private final int targetPort;
    private final int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket server;

    TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            this.port = probe.getLocalPort();
        }
        up();
    }

    int port() {
        return port;
    }

    synchronized void up() throws IOException {
        if (server != null) {
            return;
        }
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        server = s;
        Thread t = new Thread(() -> accept(s), "tcp-proxy-" + port);
        t.setDaemon(true);
        t.start();
    }

    synchronized void down() throws IOException {
        if (server != null) {
            server.close();
            server = null;
        }
        for (Socket s : sockets) {
            s.close();
        }
        sockets.clear();
    }

    private void accept(ServerSocket s) {
        while (!s.isClosed()) {
            try {
                Socket client = s.accept();
                if (!track(s, client)) {
                    return;
                }
                Socket target = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                if (!track(s, target)) {
                    close(client);
                    return;
                }
                pipe(client, target);
                pipe(target, client);
            } catch (IOException e) {
                return; // closed by down()
            }
        }
    }

    /**
     * Records a socket of the listener {@code s} so that {@link #down()} closes it; closes it at once
     * if {@code down()} ran since {@code s} accepted it (the connection must not outlive the outage).
     */
    private synchronized boolean track(ServerSocket s, Socket socket) {
        if (server != s) {
            close(socket);
            return false;
        }
        sockets.add(socket);
        return true;
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16384];
            try (InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    out.write(buf, 0, n);
                }
            } catch (IOException e) {
                // the other side or down() closed the connection
            } finally {
                close(from);
                close(to);
            }
        });
        t.setDaemon(true);
        t.start();
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        down();
    }
}
