package io.dupguard.lab.storm;

import io.dupguard.lab.workload.balance.BalanceWorkload;
import io.dupguard.lab.workload.binding.AccountBindingWorkload;
import io.dupguard.lab.workload.credit.AccountCreditWorkload;
import io.dupguard.lab.workload.form.FormSubmitWorkload;
import io.dupguard.lab.workload.locks.LockBackendsWorkload;
import io.dupguard.lab.workload.order.OrderPaymentWorkload;
import io.dupguard.lab.workload.payment.PaymentWorkload;
import java.util.List;
import java.util.Optional;

/** Every workload the storm knows, in the order a default run goes through them. */
public final class Workloads {
    private static final List<Workload> ALL = List.of(
            new AccountBindingWorkload(),
            new PaymentWorkload(),
            new BalanceWorkload(),
            new OrderPaymentWorkload(),
            new FormSubmitWorkload(),
            new AccountCreditWorkload(),
            new LockBackendsWorkload());

    private Workloads() {}

    public static List<Workload> all() {
        return ALL;
    }

    public static Optional<Workload> named(String name) {
        return ALL.stream().filter(w -> w.name().equals(name)).findFirst();
    }
}
