package io.dupguard.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The pool of connections for writes followed by WAIT, with numbers standing in for connections. */
class ConnectionPoolTest {
    private final AtomicInteger opened = new AtomicInteger();
    private final List<Integer> closed = new ArrayList<>();
    private final ConnectionPool<Integer> pool = new ConnectionPool<>(opened::incrementAndGet, closed::add);

    @Test
    void aReturnedConnectionIsReusedAndOnlyConcurrentCallersOpenMore() {
        Integer first = pool.borrow();
        pool.giveBack(first);
        assertThat(pool.borrow()).isEqualTo(first);
        Integer second = pool.borrow();
        assertThat(second).isNotEqualTo(first);
        assertThat(opened).hasValue(2);
    }

    /** As closing the store closes its shared connection under a call in flight. */
    @Test
    void closeClosesEveryConnectionOnceBusyOrNot() {
        Integer idle = pool.borrow();
        Integer busy = pool.borrow();
        pool.giveBack(idle);
        pool.close();
        pool.giveBack(busy);
        assertThat(closed).containsExactlyInAnyOrder(idle, busy);
        assertThatThrownBy(pool::borrow).isInstanceOf(IllegalStateException.class);
    }
}
