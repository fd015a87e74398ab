package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.idempotency.BatchCompletion;
import io.dupguard.idempotency.BatchEntry;
import io.dupguard.idempotency.Claim;
import io.dupguard.idempotency.Fingerprint;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.RecordStatus;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A batch on {@link RedisIdempotencyStore} costs one round trip of latency, whatever its size: in
 * front of Redis sits a proxy that hands every answer to the client {@value #DELAY_MS} ms late, so
 * a batch of {@value #KEYS} keys sent key by key would take {@value #KEYS} × that; as one script
 * (standalone Redis) the batch takes about one delay (two the first time a script is used: {@code
 * EVALSHA} answered NOSCRIPT, then {@code EVAL}).
 */
class RedisBatchRoundTripsIT {
    private static final int DELAY_MS = 200;
    private static final int KEYS = 50;
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RETENTION = Duration.ofMinutes(1);

    @Test
    void claimCompleteAndReleaseOfABatchTakeOneRoundTripEach() throws Exception {
        RedisURI target = RedisFixtures.uri(RedisFixtures.standaloneUrl());
        try (LaggingProxy proxy = new LaggingProxy(target.getPort(), DELAY_MS)) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", proxy.port()));
            try (RedisIdempotencyStore store =
                    RedisIdempotencyStore.builder(client).build()) {
                String scope =
                        "rt-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
                // The connection's set-up and the scripts' first load (NOSCRIPT, then EVAL) before timing.
                List<BatchEntry> warm = batch(scope, "warm", 2);
                store.claimAll(warm, "o", LEASE);
                store.completeAll(List.of(completion(warm.get(0))), "o", RETENTION);
                store.releaseAll(List.of(warm.get(1).key()), "o");

                List<BatchEntry> entries = batch(scope, "k", KEYS);
                long t0 = System.nanoTime();
                List<Claim> claims = store.claimAll(entries, "o", LEASE);
                long claimMs = (System.nanoTime() - t0) / 1_000_000;
                assertThat(claims).allMatch(c -> c == Claim.FRESH);

                List<BatchEntry> done = entries.subList(0, KEYS / 2);
                List<IdempotencyKey> released = entries.subList(KEYS / 2, KEYS).stream()
                        .map(BatchEntry::key)
                        .toList();
                t0 = System.nanoTime();
                assertThat(store.completeAll(
                                done.stream()
                                        .map(RedisBatchRoundTripsIT::completion)
                                        .toList(),
                                "o",
                                RETENTION))
                        .isEmpty();
                long completeMs = (System.nanoTime() - t0) / 1_000_000;
                t0 = System.nanoTime();
                store.releaseAll(released, "o");
                long releaseMs = (System.nanoTime() - t0) / 1_000_000;

                // One round trip takes DELAY_MS; key by key would take KEYS (or KEYS / 2) of them.
                assertThat(claimMs).as("claimAll of %d keys, ms", KEYS).isBetween((long) DELAY_MS, 3L * DELAY_MS);
                assertThat(completeMs)
                        .as("completeAll of %d keys, ms", KEYS / 2)
                        .isBetween((long) DELAY_MS, 3L * DELAY_MS);
                assertThat(releaseMs)
                        .as("releaseAll of %d keys, ms", KEYS / 2)
                        .isBetween((long) DELAY_MS, 3L * DELAY_MS);
                assertThat(store.find(done.get(0).key()))
                        .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(RecordStatus.COMPLETED));
                assertThat(store.find(released.get(0))).isEmpty();
            } finally {
                client.shutdown();
            }
        }
    }

    private static List<BatchEntry> batch(String scope, String prefix, int n) {
        return IntStream.range(0, n)
                .mapToObj(i -> BatchEntry.of(IdempotencyKey.of(scope, prefix + i)))
                .toList();
    }

    private static BatchCompletion completion(BatchEntry e) {
        return new BatchCompletion(
                e.key(), Fingerprint.none(), RecordStatus.COMPLETED, "ok".getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A loopback forwarder that passes the client's bytes on at once and hands the server's back
     * {@code delayMs} later, in order (each chunk is due its own arrival time + the delay, so the
     * delays of pipelined answers overlap instead of adding up).
     */
    static final class LaggingProxy implements AutoCloseable {
        private final ServerSocket server;

        /** Bytes from the server, and when they are due at the client. */
        private record Chunk(long dueNanos, byte[] bytes) {}

        LaggingProxy(int targetPort, int delayMs) throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread accept = new Thread(
                    () -> {
                        try {
                            while (true) {
                                Socket client = server.accept();
                                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                                daemon(() -> copy(client.getInputStream(), upstream.getOutputStream()));
                                LinkedBlockingQueue<Chunk> chunks = new LinkedBlockingQueue<>();
                                daemon(() -> {
                                    InputStream in = upstream.getInputStream();
                                    byte[] buf = new byte[65536];
                                    for (int n; (n = in.read(buf)) >= 0; ) {
                                        chunks.add(new Chunk(
                                                System.nanoTime() + delayMs * 1_000_000L, Arrays.copyOf(buf, n)));
                                    }
                                });
                                daemon(() -> {
                                    OutputStream out = client.getOutputStream();
                                    while (true) {
                                        Chunk chunk = chunks.take();
                                        long wait = chunk.dueNanos() - System.nanoTime();
                                        if (wait > 0) {
                                            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                                        }
                                        out.write(chunk.bytes());
                                        out.flush();
                                    }
                                });
                            }
                        } catch (IOException e) {
                            // closed
                        }
                    },
                    "lagging-proxy");
            accept.setDaemon(true);
            accept.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private static void copy(InputStream in, OutputStream out) throws IOException {
            byte[] buf = new byte[65536];
            for (int n; (n = in.read(buf)) >= 0; ) {
                out.write(buf, 0, n);
                out.flush();
            }
        }

        /** Work of a forwarding thread; it ends when its socket closes. */
        @FunctionalInterface
        interface Pump {
            void run() throws IOException, InterruptedException;
        }

        private static void daemon(Pump pump) {
            Thread t = new Thread(() -> {
                try {
                    pump.run();
                } catch (IOException | InterruptedException e) {
                    // the connection closed
                }
            });
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
