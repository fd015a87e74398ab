package io.dupguard.lab.storm;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The driver makes duplicates the way they arise in production, and counts what the client sees. */
class StormDriverTest {

    /** A service that records concurrency per key; answers are what {@code answer} says. */
    private static class FakeTrial implements Trial {
        final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        final Map<String, Integer> maxRunning = new ConcurrentHashMap<>();
        final AtomicLong served = new AtomicLong();
        final AtomicLong counter = new AtomicLong();

        record Req(String key, boolean tampered) implements Request {}

        @Override
        public Request newRequest(int client, long seq, SplittableRandom random) throws SQLException {
            return new Req(client + "-" + seq + "-" + random.nextInt(1000), false);
        }

        @Override
        public Request tamper(Request original, SplittableRandom random) {
            return new Req(original.key(), true);
        }

        @Override
        public Object serve(Request request, Service service) {
            served.incrementAndGet();
            int now = running.computeIfAbsent(request.key(), k -> new AtomicInteger())
                    .incrementAndGet();
            maxRunning.merge(request.key(), now, Math::max);
            try {
                service.pause();
                return answer((Req) request);
            } finally {
                running.get(request.key()).decrementAndGet();
            }
        }

        Object answer(Req request) {
            return request.key();
        }

        @Override
        public Effects check(List<Sent> ledger) {
            return new Effects(0, 0, 0, "");
        }
    }

    private static StormSettings settings(
            Duration latency, Duration timeout, double doubleSend, double tamper, long seed) {
        return new StormSettings(
                4,
                Duration.ofMillis(300),
                seed,
                timeout,
                3,
                doubleSend,
                0,
                tamper,
                new LatencyModel(latency, 0, latency, latency),
                Duration.ofSeconds(10),
                16);
    }

    @Test
    void retriesTheSameRequestWhileTheFirstAttemptStillRuns() throws InterruptedException {
        FakeTrial trial = new FakeTrial();
        Observed seen = new StormDriver(trial, settings(Duration.ofMillis(60), Duration.ofMillis(10), 0, 0, 1)).run();

        assertThat(seen.requests()).isPositive();
        assertThat(seen.duplicatesSent()).isEqualTo(2 * seen.requests());
        assertThat(seen.attempts()).isEqualTo(3 * seen.requests());
        assertThat(trial.served.get()).as("every attempt ran to completion").isEqualTo(seen.attempts());
        assertThat(trial.maxRunning.values())
                .as("retries overlap the first attempt")
                .contains(3);
        assertThat(seen.acknowledged()).isEqualTo(seen.requests());
        assertThat(seen.replayMismatches()).isZero();
    }

    @Test
    void answersThatDifferFromTheFirstAreCounted() throws InterruptedException {
        FakeTrial trial = new FakeTrial() {
            @Override
            Object answer(Req request) {
                return counter.incrementAndGet();
            }
        };
        Observed seen = new StormDriver(trial, settings(Duration.ofMillis(2), Duration.ofSeconds(1), 1.0, 0, 2)).run();

        assertThat(seen.duplicatesSent()).isEqualTo(seen.requests());
        assertThat(seen.replayMismatches()).isEqualTo(seen.requests());
    }

    @Test
    void refusedTamperedDuplicatesAreCountedAsRefusedNotAsErrors() throws InterruptedException {
        FakeTrial trial = new FakeTrial() {
            @Override
            Object answer(Req request) {
                if (request.tampered()) {
                    throw new Refused("different amount");
                }
                return request.key();
            }
        };
        Observed seen = new StormDriver(trial, settings(Duration.ofMillis(2), Duration.ofSeconds(1), 0, 1.0, 3)).run();

        assertThat(seen.tamperedSent()).isEqualTo(seen.acknowledged()).isPositive();
        assertThat(seen.refused()).isEqualTo(seen.tamperedSent());
        assertThat(seen.tamperedAccepted()).isZero();
        assertThat(seen.errors()).isZero();
    }

    @Test
    void errorsAreCountedWithTheFirstMessage() throws InterruptedException {
        FakeTrial trial = new FakeTrial() {
            @Override
            Object answer(Req request) {
                throw new IllegalStateException("database on fire");
            }
        };
        Observed seen = new StormDriver(trial, settings(Duration.ofMillis(2), Duration.ofSeconds(1), 0, 0, 4)).run();

        assertThat(seen.errors()).isEqualTo(3 * seen.requests());
        assertThat(seen.acknowledged()).isZero();
        assertThat(seen.firstError()).isEqualTo("IllegalStateException: database on fire");
    }

    /**
     * The order-payment storm under connection-kill once ended here: the order's own create met a
     * killed connection, and "a storm client failed" stopped the whole run.
     */
    @Test
    void aStoreErrorWhilePreparingARequestIsAnErrorAndTheSameRequestIsPreparedAgain() throws InterruptedException {
        Map<String, AtomicInteger> prepared = new ConcurrentHashMap<>();
        FakeTrial trial = new FakeTrial() {
            @Override
            public Request newRequest(int client, long seq, SplittableRandom random) throws SQLException {
                String order = client + "-" + seq;
                if (prepared.computeIfAbsent(order, k -> new AtomicInteger()).incrementAndGet() == 1) {
                    throw new SQLException("FATAL: terminating connection due to administrator command", "57P01");
                }
                return new Req(order, false);
            }
        };
        Observed seen = new StormDriver(trial, settings(Duration.ofMillis(2), Duration.ofSeconds(1), 0, 0, 9)).run();

        assertThat(seen.requests()).isPositive();
        assertThat(seen.acknowledged()).isEqualTo(seen.requests());
        assertThat(seen.ledger()).allSatisfy(sent -> assertThat(
                        prepared.get(sent.request().key()))
                .as("%s prepared again after its failure", sent.request().key())
                .hasValue(2));
        assertThat(seen.errors()).isBetween(seen.requests(), seen.requests() + 4); // + one per client at the end
        assertThat(seen.firstError()).startsWith("preparing a request: SQLException: FATAL: terminating connection");
    }

    @Test
    void aLaterAnswerTheTrialCallsConsistentIsNoMismatch() throws InterruptedException {
        FakeTrial trial = new FakeTrial() {
            @Override
            Object answer(Req request) {
                return counter.incrementAndGet();
            }

            @Override
            public boolean answersAgree(Object first, Object later) {
                return true;
            }
        };
        Observed seen = new StormDriver(trial, settings(Duration.ofMillis(2), Duration.ofSeconds(1), 1.0, 0, 2)).run();

        assertThat(seen.duplicatesSent()).isEqualTo(seen.requests()).isPositive();
        assertThat(seen.replayMismatches()).isZero();
    }

    @Test
    void theLedgerCountsEachRequestsRefusedAttemptsButNotItsTamperedDuplicate() throws InterruptedException {
        Set<String> answered = ConcurrentHashMap.newKeySet();
        FakeTrial trial = new FakeTrial() {
            @Override
            Object answer(Req request) {
                if (request.tampered() || !answered.add(request.key())) {
                    throw new Refused("already submitted");
                }
                return request.key();
            }
        };
        Observed seen =
                new StormDriver(trial, settings(Duration.ofMillis(2), Duration.ofSeconds(1), 1.0, 1.0, 8)).run();

        assertThat(seen.ledger()).isNotEmpty().allSatisfy(sent -> {
            assertThat(sent.acknowledged()).isTrue();
            assertThat(sent.refusals())
                    .as("the double send of %s", sent.request().key())
                    .isEqualTo(1);
        });
        assertThat(seen.refused()).isEqualTo(seen.requests() + seen.tamperedSent());
    }

    @Test
    void theSameSeedSendsTheSameRequests() throws InterruptedException {
        StormSettings s = settings(Duration.ofMillis(2), Duration.ofSeconds(1), 0.1, 0, 5);

        Set<String> first = firstRequestOfEachClient(new StormDriver(new FakeTrial(), s).run());
        Set<String> again = firstRequestOfEachClient(new StormDriver(new FakeTrial(), s).run());
        Set<String> otherSeed = firstRequestOfEachClient(new StormDriver(new FakeTrial(), s.withSeed(6)).run());

        assertThat(first).hasSize(4).isEqualTo(again).isNotEqualTo(otherSeed);
    }

    private static Set<String> firstRequestOfEachClient(Observed seen) {
        return seen.ledger().stream()
                .map(sent -> sent.request().key())
                .filter(key -> key.split("-")[1].equals("0"))
                .collect(Collectors.toSet());
    }
}
