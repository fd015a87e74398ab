package io.dupguard.lab;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The strategies each workload runs without extra servers, in order, for the storm ITs. */
final class Expected {
    private Expected() {}

    static Map<String, List<String>> defaultWorkloads() {
        Map<String, List<String>> m = new LinkedHashMap<>();
        m.put(
                "account-binding",
                List.of("select-then-insert", "unique-key-catch", "insert-ignore-reread", "lock", "idempotency"));
        m.put(
                "payment",
                List.of("none", "select-then-insert", "idempotency-memory", "idempotency-jdbc", "idempotency-jdbc-tx"));
        m.put(
                "balance-init",
                List.of(
                        "select-then-insert",
                        "unique-key-no-reread",
                        "retry-lock",
                        "retry-lock-requery",
                        "lock-double-check",
                        "insert-if-absent"));
        m.put("order-payment", List.of("read-then-update", "lock-and-transitions", "retry-log"));
        m.put("form-submit", List.of("none", "throttle", "token", "prepared"));
        return m;
    }

    /** The lock backends that need no server. */
    static List<String> localLockBackends() {
        return List.of("memory-unfenced", "memory-fenced", "jdbc-unfenced", "jdbc-fenced");
    }

    /** Every lock backend, each unfenced and fenced. */
    static List<String> allLockBackends() {
        return List.of(
                "memory-unfenced",
                "memory-fenced",
                "jdbc-unfenced",
                "jdbc-fenced",
                "redis-unfenced",
                "redis-fenced",
                "redlock-unfenced",
                "redlock-fenced",
                "zookeeper-unfenced",
                "zookeeper-fenced");
    }
}
