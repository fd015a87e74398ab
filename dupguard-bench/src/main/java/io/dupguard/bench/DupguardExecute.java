package io.dupguard.bench;

import io.dupguard.idempotency.Idempotency;
import io.dupguard.idempotency.IdempotencyKey;
import io.dupguard.idempotency.Outcome;
import io.dupguard.idempotency.RequestInFlightException;
import java.util.function.LongFunction;

/**
 * dupguard's {@code Idempotency.execute} as a row of the benchmark — the one adapter of the
 * library, whatever the store: every call builds {@code IdempotencyKey.of("bench", key)} (NFC
 * normalisation and checks are part of the API's cost), passes the precomputed fingerprint and
 * returns whether the work ran.
 */
final class DupguardExecute implements BenchImpl {
    /** Empties the row's store between runs. */
    @FunctionalInterface
    interface Reset {
        void run() throws Exception;
    }

    private final String name;
    private final Role role;
    private final String description;
    private final Idempotency idempotency;
    private final LongFunction<String> work;
    private final boolean answersInFlight;
    private final Reset reset;
    private final java.util.function.Supplier<Client> clients;

    /**
     * @param work the result of call number {@code seq}
     * @param answersInFlight whether the row takes part in the racing workload (a racing duplicate
     *     is rejected as in flight, which counts as "not run here")
     */
    DupguardExecute(
            String name,
            Role role,
            String description,
            Idempotency idempotency,
            LongFunction<String> work,
            boolean answersInFlight,
            Reset reset) {
        this.name = name;
        this.role = role;
        this.description = description;
        this.idempotency = idempotency;
        this.work = work;
        this.answersInFlight = answersInFlight;
        this.reset = reset;
        this.clients = () -> this::call;
    }

    /**
     * A row whose client threads each make their own client ({@code clients}, e.g. each with its own
     * in-memory store); they call {@link #call(Idempotency, String, long, LongFunction)}.
     */
    DupguardExecute(String name, Role role, String description, java.util.function.Supplier<Client> clients) {
        this.name = name;
        this.role = role;
        this.description = description;
        this.idempotency = null;
        this.work = null;
        this.answersInFlight = false;
        this.reset = () -> {};
        this.clients = clients;
    }

    /** One call: true if the work ran, false if a stored result was replayed or the key is in flight. */
    static boolean call(Idempotency idempotency, String key, long seq, LongFunction<String> work) {
        Outcome<String> out;
        try {
            out = idempotency.execute(
                    IdempotencyKey.of(Bench.SCOPE, key), Bench.FINGERPRINT, String.class, () -> work.apply(seq));
        } catch (RequestInFlightException e) {
            return false; // a racing duplicate, rejected by the default in-flight policy
        }
        Bench.consume(out.value());
        return !out.isReplay();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Role role() {
        return role;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public boolean call(String key, long seq) {
        if (idempotency == null) {
            throw new UnsupportedOperationException("per-thread clients only");
        }
        return call(idempotency, key, seq, work);
    }

    @Override
    public Client newClient() {
        return clients.get();
    }

    @Override
    public boolean answersInFlight() {
        return answersInFlight;
    }

    @Override
    public void reset() throws Exception {
        reset.run();
    }
}
