package io.dupguard.lab.env;

import java.io.IOException;
import java.net.URI;

/**
 * A {@code redis-server} of the lab's own ({@link LabRedisServer}, no persistence) that clients reach
 * through a {@link LoopbackRelay}, for the {@code redis-partition} fault: {@link #partition()} cuts
 * the network between them both ways (nothing passes, no socket is closed or reset, new connections
 * hang), {@link #heal()} delivers what was held and relays again. The server itself keeps running
 * and keeps every key.
 */
public final class LabRedisPartition implements AutoCloseable {
    private final LabRedisServer server;
    private final LoopbackRelay relay;

    /**
     * Starts the server and the relay in front of it.
     *
     * @throws IOException if {@code redis-server} does not start or no port is free
     */
    public LabRedisPartition() throws IOException {
        server = new LabRedisServer(false);
        try {
            URI direct = URI.create(server.url());
            relay = LoopbackRelay.to(direct.getHost(), direct.getPort());
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** Where clients connect: through the relay. */
    public String url() {
        return "redis://" + relay.address();
    }

    /** Cuts the network between the clients and the server, both ways. */
    public void partition() {
        relay.partition();
    }

    /** Ends the partition. */
    public void heal() {
        relay.heal();
    }

    @Override
    public void close() throws IOException {
        try {
            relay.close();
        } finally {
            server.close();
        }
    }
}
