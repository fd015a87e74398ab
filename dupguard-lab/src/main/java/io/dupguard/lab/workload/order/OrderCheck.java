package io.dupguard.lab.workload.order;

import io.dupguard.lab.storm.Effects;
import io.dupguard.lab.storm.Sent;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The order-payment invariants, read from the database after the retry job: each order charged at
 * most once on the platform's ledger; SUCCESS exactly when charged once, with that charge's id;
 * FAIL exactly when never charged; no order the user paid left READY or PAYING; every answer the
 * user got true.
 */
final class OrderCheck {
    private OrderCheck() {}

    static Effects check(OrderTable table, PaymentPlatform platform, List<Sent> ledger) throws SQLException {
        Map<String, List<PaymentPlatform.Charge>> charges =
                platform.charges().stream().collect(Collectors.groupingBy(PaymentPlatform.Charge::orderId));
        Set<String> requested = ledger.stream().map(s -> s.request().key()).collect(Collectors.toSet());
        Map<String, OrderTable.Order> orders = new LinkedHashMap<>();
        for (OrderTable.Order o : table.orders()) {
            // an order whose create failed as the storm ended was never sent: none of the strategy's business
            if (requested.contains(o.id()) || o.status() != OrderStatus.READY) {
                orders.put(o.id(), o);
            }
        }
        long duplicates = 0;
        long inconsistent = 0;
        long stuck = 0;
        long declined = 0;
        String evidence = "";
        for (OrderTable.Order o : orders.values()) {
            List<PaymentPlatform.Charge> mine = charges.getOrDefault(o.id(), List.of());
            duplicates += Math.max(0, mine.size() - 1);
            switch (o.status()) {
                case SUCCESS -> {
                    if (mine.size() != 1
                            || !Long.valueOf(mine.get(0).chargeId()).equals(o.chargeId())) {
                        inconsistent++;
                    }
                }
                case FAIL -> {
                    declined++;
                    if (!mine.isEmpty()) {
                        inconsistent++;
                    }
                }
                default -> stuck++;
            }
            if (evidence.isEmpty() && mine.size() > 1) {
                evidence = describe(table, platform, o, mine);
            }
        }
        long lost = 0;
        for (Sent sent : ledger) {
            if (sent.acknowledged() && !told(orders.get(sent.request().key()), charges, (PayAnswer) sent.response())) {
                lost++;
            }
        }
        List<String> violations = new ArrayList<>();
        if (inconsistent > 0) {
            violations.add(inconsistent + " orders whose status disagrees with the platform's ledger"
                    + " (SUCCESS needs exactly its one charge, FAIL none)");
        }
        if (stuck > 0) {
            violations.add(stuck + " orders still READY or PAYING after the retry job");
        }
        Map<String, Long> metrics = new LinkedHashMap<>();
        metrics.put(
                "ordersChargedTwice",
                charges.values().stream().filter(c -> c.size() > 1).count());
        metrics.put("inconsistentOrders", inconsistent);
        metrics.put("stuckInPaying", stuck);
        metrics.put("declinedAlerts", declined);
        return new Effects(duplicates, lost, 0, evidence, violations, metrics);
    }

    /** Whether the answer the user got is what the database says now. */
    private static boolean told(
            OrderTable.Order order, Map<String, List<PaymentPlatform.Charge>> charges, PayAnswer answer) {
        List<PaymentPlatform.Charge> mine = charges.getOrDefault(order.id(), List.of());
        return switch (answer.outcome()) {
            case PAID ->
                order.status() == OrderStatus.SUCCESS
                        && Long.valueOf(answer.chargeId()).equals(order.chargeId())
                        && mine.stream().anyMatch(c -> c.chargeId() == answer.chargeId());
            case DECLINED -> order.status() == OrderStatus.FAIL && mine.isEmpty();
            case PENDING -> true; // what it became is checked above
        };
    }

    private static String describe(
            OrderTable table, PaymentPlatform platform, OrderTable.Order o, List<PaymentPlatform.Charge> mine) {
        long first = mine.stream()
                .mapToLong(PaymentPlatform.Charge::createdAtMillis)
                .min()
                .orElse(0);
        long last = mine.stream()
                .mapToLong(PaymentPlatform.Charge::createdAtMillis)
                .max()
                .orElse(0);
        return "order " + o.id() + " charged " + mine.size() + " times in " + platform.ledger + ": charges "
                + mine.stream().map(c -> Long.toString(c.chargeId())).collect(Collectors.joining(", ")) + ", "
                + (last - first) + " ms apart; " + table.name + " says " + o.status()
                + (o.chargeId() == null ? "" : " with charge " + o.chargeId());
    }
}
