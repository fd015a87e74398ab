package io.dupguard.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StateMachineTest {
    enum Order {
        READY,
        PAYING,
        SUCCESS,
        FAIL
    }

    private final StateMachine<Order> orders = StateMachine.builder(Order.class)
            .transition(Order.READY, Order.PAYING)
            .transition(Order.PAYING, Order.SUCCESS, Order.FAIL)
            .build();

    @Test
    void allowsOnlyDeclaredTransitions() {
        assertThat(orders.allows(Order.READY, Order.PAYING)).isTrue();
        assertThat(orders.allows(Order.PAYING, Order.READY)).isFalse();
        assertThat(orders.allows(Order.SUCCESS, Order.FAIL)).isFalse();
    }

    @Test
    void terminalStatesHaveNoWayOut() {
        assertThat(orders.terminalStates()).containsExactlyInAnyOrder(Order.SUCCESS, Order.FAIL);
    }

    @Test
    void undeclaredTransitionIsRefusedWithItsName() {
        assertThatThrownBy(() -> orders.check(Order.SUCCESS, Order.READY))
                .isInstanceOf(IllegalTransitionException.class)
                .hasMessage("transition SUCCESS -> READY is not declared");
    }

    @Test
    void selfTransitionsCannotBeDeclared() {
        assertThatThrownBy(() -> StateMachine.builder(Order.class).transition(Order.READY, Order.READY))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parsesStoredStatusOrSaysWhatIsWrong() {
        assertThat(orders.parse("PAYING ")).isEqualTo(Order.PAYING);
        assertThatThrownBy(() -> orders.parse("SHIPPED"))
                .hasMessageContaining("SHIPPED")
                .hasMessageContaining("Order");
    }
}
