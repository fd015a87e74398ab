package io.dupguard.lab.workload.order;

import io.dupguard.state.StateMachine;

/** Seed 002 §6.1's order states: ready to pay, paying, paid, failed. */
enum OrderStatus {
    READY,
    PAYING,
    SUCCESS,
    FAIL;

    /** READY → PAYING → SUCCESS | FAIL, never back. */
    static final StateMachine<OrderStatus> MACHINE = StateMachine.builder(OrderStatus.class)
            .transition(READY, PAYING)
            .transition(PAYING, SUCCESS, FAIL)
            .build();
}
