#!/usr/bin/env python3
"""An independent client of payments-service that kills it while it works.

Runs the built jar (java -jar) on its own port, queue, outbox table and Redis prefixes; N client
threads pay with their own Idempotency-Keys (and pairs of threads of one principal send the same
key and body at once, as a double-click), each retrying its key with the same body until it gets a
201; a killer sends SIGKILL to the JVM 1-4 s after each start and starts it again. Keyless and
poison credit messages go straight into the credits queue through the RabbitMQ management API.
Then a last start, a wait until the outbox and the queue have drained, and the counts in
PostgreSQL and RabbitMQ. Exits 1 if any count is off.

Python 3 standard library only; needs psql on the PATH and rabbitmq_management on 15672.

    python3 examples/payments-service/chaos/chaos-client.py --mode redis --minutes 5
    python3 examples/payments-service/chaos/chaos-client.py --mode jdbc --minutes 5
"""
import argparse
import base64
import glob
import hashlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter, defaultdict
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
PRINCIPALS = {"shop-a": "secret-a", "shop-b": "secret-b"}


def reference(client, key):
    """PaymentController.reference: Java's UUID.nameUUIDFromBytes(client + "\\n" + key)."""
    d = bytearray(hashlib.md5((client + "\n" + key).encode()).digest())
    d[6] = (d[6] & 0x0F) | 0x30
    d[8] = (d[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(d)))


def log(msg):
    print(time.strftime("%H:%M:%S ") + msg, flush=True)


class App:
    """The service as a child JVM: started from the jar, killed with SIGKILL."""

    def __init__(self, args, names, logdir):
        self.args, self.names, self.logdir = args, names, logdir
        self.proc = None
        self.starts = 0
        self.kills = 0
        self.lock = threading.Lock()

    def start(self):
        # A JVM still on the port (one not started here) would answer every request and never be killed.
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", self.args.port)) == 0:
                raise SystemExit("port %d is taken: stop what listens there first" % self.args.port)
        self.starts += 1
        logfile = open(os.path.join(self.logdir, "app-%03d.log" % self.starts), "w")
        cmd = ["java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx384m", "-jar", self.args.jar,
               "--server.port=%d" % self.args.port, "--spring.main.banner-mode=off",
               "--dupguard.store=" + self.args.mode,
               "--payments.credits.queue=" + self.names["queue"],
               "--dupguard.retry.table=" + self.names["retry_table"],
               "--dupguard.redis.idempotency-key-prefix=" + self.names["redis"] + "idem:",
               "--dupguard.redis.lock-key-prefix=" + self.names["redis"] + "lock:",
               "--spring.datasource.hikari.maximum-pool-size=8"] + self.args.app_arg
        with self.lock:
            self.proc = subprocess.Popen(cmd, stdout=logfile, stderr=subprocess.STDOUT)
        deadline = time.time() + 180
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit("the service exited with %s while starting (%s)" % (self.proc.returncode, logfile.name))
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/actuator/health" % self.args.port, timeout=5) as r:
                    if b'"UP"' in r.read():
                        return
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.2)
        raise SystemExit("the service did not report UP within 180 s (%s)" % logfile.name)

    def kill(self):
        with self.lock:
            if self.proc and self.proc.poll() is None:
                self.proc.send_signal(signal.SIGKILL)
                self.proc.wait()
                self.kills += 1


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = 0
        self.retries = 0
        self.statuses = Counter()
        self.bugs = []
        # (client, key) -> dict(ref, account, amount, ids=set of payment ids seen in 201 bodies)
        self.paid = {}

    def add(self, status):
        with self.lock:
            self.requests += 1
            self.statuses[status] += 1

    def bug(self, msg):
        with self.lock:
            self.bugs.append(msg)
        log("BUG: " + msg)


def pay(args, stats, client, key, body, stop_retrying_at):
    """POSTs until a 201; returns its body (dict), or None on a client-side bug (422, 4xx)."""
    data = json.dumps(body).encode()
    auth = base64.b64encode(("%s:%s" % (client, PRINCIPALS[client])).encode()).decode()
    delay = 0.2
    first = True
    while True:
        if not first:
            with stats.lock:
                stats.retries += 1
        first = False
        req = urllib.request.Request("http://127.0.0.1:%d/payments" % args.port, data=data, method="POST", headers={
            "Authorization": "Basic " + auth, "Idempotency-Key": key, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                status, text = r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode(errors="replace")
        except (OSError, urllib.error.URLError, ConnectionError):
            status, text = "conn", ""
        stats.add(status)
        if status == 201:
            return json.loads(text)
        if status in (409, "conn") or (isinstance(status, int) and status >= 500):
            if time.time() > stop_retrying_at:
                stats.bug("%s %s: no 201 after retrying until the end (last %s %s)" % (client, key, status, text[:200]))
                return None
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 2.0)
            continue
        stats.bug("%s %s: %s %s" % (client, key, status, text[:300]))
        return None


def client_loop(args, stats, run, idx, client, pair, deadline, stop_retrying_at):
    """One client: its own keys, or, with pair set, the keys it shares with the other thread of its pair."""
    n = 0
    while time.time() < deadline:
        owner = ("p%d" % pair) if pair is not None else ("c%d" % idx)
        key = "%s-%s-%d" % (run, owner, n)
        rnd = random.Random(key)  # both threads of a pair derive the same body
        account = "%s-acc-%d" % (run, rnd.randrange(args.accounts))
        amount = "%d.%02d" % (rnd.randrange(1, 100), rnd.randrange(100))
        body = {"account": account, "amount": amount}
        answer = pay(args, stats, client, key, body, stop_retrying_at)
        n += 1
        if answer is None:
            continue
        with stats.lock:
            entry = stats.paid.setdefault((client, key), {
                "ref": reference(client, key), "account": account, "amount": Decimal(amount), "ids": set()})
            entry["ids"].add(answer.get("id"))
        if str(answer.get("reference")) != entry["ref"] or Decimal(str(answer.get("amount"))) != Decimal(amount):
            stats.bug("%s %s: 201 body %s does not match the request" % (client, key, answer))


class Rabbit:
    def __init__(self, base="http://127.0.0.1:15672/api"):
        self.base = base
        self.auth = "Basic " + base64.b64encode(b"guest:guest").decode()

    def call(self, method, path, body=None):
        req = urllib.request.Request(self.base + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": self.auth, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                text = r.read().decode()
                return json.loads(text) if text else None
        except urllib.error.HTTPError as e:
            if e.code == 404:
                return None
            raise

    def queue(self, name):
        return self.call("GET", "/queues/%2F/" + urllib.parse.quote(name, safe=""))

    def delete_queue(self, name):
        self.call("DELETE", "/queues/%2F/" + urllib.parse.quote(name, safe=""))

    def publish(self, queue, payload, properties):
        r = self.call("POST", "/exchanges/%2F/amq.default/publish", {
            "properties": properties, "routing_key": queue, "payload": payload, "payload_encoding": "string"})
        if not r or not r.get("routed"):
            raise SystemExit("message not routed to " + queue)

    def peek(self, queue, count):
        return self.call("POST", "/queues/%2F/" + urllib.parse.quote(queue, safe="") + "/get", {
            "count": count, "ackmode": "ack_requeue_true", "encoding": "auto"}) or []


def psql(sql):
    out = subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-At", "-F", "|", "-v",
                          "ON_ERROR_STOP=1"], input=sql, capture_output=True, text=True, check=True).stdout
    return [line.split("|") for line in out.splitlines() if line]


def injector(args, rabbit, names, run, deadline, injected):
    """Keyless and poison credits straight into the queue, spread over the run."""
    i = 0
    while time.time() < deadline - 20 and i < args.inject:
        time.sleep(random.uniform(5, 15))
        credit = json.dumps({"paymentRef": "%s-keyless-%d" % (run, i), "account": "%s-acc-keyless" % run,
                             "amount": "1.00"})
        rabbit.publish(names["queue"], credit, {"content_type": "application/json",
                                                "headers": {"chaos": "keyless-%d" % i}})
        injected["keyless"].append("keyless-%d" % i)
        rabbit.publish(names["queue"], "not a credit {", {"message_id": "%s-poison-%d" % (run, i),
                                                          "content_type": "application/json",
                                                          "headers": {"chaos": "poison-%d" % i}})
        injected["poison"].append("poison-%d" % i)
        i += 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["redis", "jdbc"], default="redis")
    p.add_argument("--minutes", type=float, default=5)
    p.add_argument("--clients", type=int, default=16, help="client threads with their own keys")
    p.add_argument("--pairs", type=int, default=2, help="pairs of threads (one principal) sharing keys")
    p.add_argument("--accounts", type=int, default=4)
    p.add_argument("--inject", type=int, default=5, help="keyless and poison messages, each")
    p.add_argument("--port", type=int, default=18080)
    p.add_argument("--name", default="chaos", help="prefix of the queue, outbox table and Redis keys")
    p.add_argument("--jar", default=None)
    p.add_argument("--app-arg", action="append", default=[], help="another --name=value for the service")
    args = p.parse_args()
    if args.jar is None:
        jars = glob.glob(os.path.join(HERE, "..", "target", "payments-service-*.jar"))
        jars = [j for j in jars if not j.endswith(("-sources.jar", "-javadoc.jar", ".original"))]
        if not jars:
            raise SystemExit("no jar: ./mvnw -q -pl examples/payments-service -am package -DskipTests")
        args.jar = jars[0]
    run = "%s-%s-%s" % (args.name, args.mode, time.strftime("%m%d%H%M%S"))
    names = {"queue": "payments.credits.%s-%s" % (args.name, args.mode),
             "retry_table": "example_%s_%s_retry_tasks" % (args.name, args.mode),
             "redis": "example:%s:%s:" % (args.name, args.mode)}
    logdir = os.path.join(HERE, "..", "target", "chaos-logs", run)
    os.makedirs(logdir, exist_ok=True)
    rabbit = Rabbit()
    for q in (names["queue"], names["queue"] + ".dlq"):
        rabbit.delete_queue(q)  # a clean queue and dead-letter queue for this run
    log("run %s: mode %s, %d clients + %d pairs, %.1f min, port %d, queue %s, logs %s"
        % (run, args.mode, args.clients, args.pairs, args.minutes, args.port, names["queue"], logdir))

    app = App(args, names, logdir)
    try:
        run_chaos(args, run, names, logdir, rabbit, app)
    finally:
        app.kill()  # stop the service: no JVM outlives the run


def run_chaos(args, run, names, logdir, rabbit, app):
    stats = Stats()
    started = time.time()
    app.start()
    deadline = started + args.minutes * 60
    stop_retrying_at = deadline + 600
    threads = []
    for i in range(args.clients):
        client = "shop-a" if i % 2 == 0 else "shop-b"
        threads.append(threading.Thread(target=client_loop, args=(
            args, stats, run, i, client, None, deadline, stop_retrying_at), daemon=True))
    for pair in range(args.pairs):
        client = "shop-a" if pair % 2 == 0 else "shop-b"
        for _ in range(2):
            threads.append(threading.Thread(target=client_loop, args=(
                args, stats, run, None, client, pair, deadline, stop_retrying_at), daemon=True))
    injected = {"keyless": [], "poison": []}
    inj = threading.Thread(target=injector, args=(args, rabbit, names, run, deadline, injected), daemon=True)
    for t in threads + [inj]:
        t.start()

    up = []
    while True:  # the killer: SIGKILL 1-4 s after each start, then a new start
        up_since = time.time()
        time.sleep(random.uniform(1, 4))
        app.kill()
        up.append(time.time() - up_since)
        log("kill %d after %.1f s up; %d requests, %d keys paid" % (app.kills, up[-1], stats.requests, len(stats.paid)))
        app.start()
        if time.time() >= deadline:
            break  # the last start stays up
    kills = app.kills
    log("killer done (%d kills); the clients finish their keys" % kills)
    inj.join()
    for t in threads:
        t.join()
    log("clients done: %d requests, %d retries, %d keys paid" % (stats.requests, stats.retries, len(stats.paid)))

    # Drain: every credit applied, the outbox empty, the queue empty (polled, 10 min at most).
    refs = sorted(e["ref"] for e in stats.paid.values())
    ref_list = ",".join("'%s'" % r for r in refs)
    drain_deadline = time.time() + 600
    while True:
        credited = int(psql("select count(*) from example_credits_v2 where payment_ref in (%s);" % ref_list)[0][0])
        open_tasks = int(psql("select count(*) from %s where state <> 'S';" % names["retry_table"])[0][0])
        q = rabbit.queue(names["queue"]) or {}
        dlq = rabbit.queue(names["queue"] + ".dlq") or {}
        expected_dead = len(injected["keyless"]) + len(injected["poison"])
        if (credited >= len(refs) and open_tasks == 0 and q.get("messages", 1) == 0
                and dlq.get("messages", 0) >= expected_dead):
            break
        if time.time() > drain_deadline:
            log("not drained after 10 min: %d/%d credited, %d open tasks, queue %s, dlq %s" % (
                credited, len(refs), open_tasks, q.get("messages"), dlq.get("messages")))
            break
        time.sleep(1)
    log("drained")

    # The counts.
    failures = list(stats.bugs)
    payments = {r[0]: r for r in psql(
        "select payment_ref, count(*) over (partition by payment_ref), id, client, account, amount"
        " from example_payments_v2 where payment_ref in (%s);" % ref_list)}
    auths = {r[0]: r for r in psql(
        "select auth_key, count(*) over (partition by auth_key), calls from example_gateway_authorisations"
        " where auth_key in (%s);" % ref_list)}
    credits = {r[0]: r for r in psql(
        "select payment_ref, count(*) over (partition by payment_ref), account, amount from example_credits_v2"
        " where payment_ref in (%s);" % ref_list)}
    rows_per_key = Counter()
    for (client, key), e in stats.paid.items():
        row = payments.get(e["ref"])
        rows_per_key[int(row[1]) if row else 0] += 1
        if not row or row[1] != "1":
            failures.append("%s %s: %s payment rows" % (client, key, row[1] if row else 0))
        elif {str(i) for i in e["ids"]} != {row[2]} or row[3] != client or Decimal(row[5]) != e["amount"]:
            failures.append("%s %s: 201 bodies with ids %s, row %s" % (client, key, e["ids"], row))
        a = auths.get(e["ref"])
        if not a or a[1] != "1":
            failures.append("%s %s: %s authorisations" % (client, key, a[1] if a else 0))
        c = credits.get(e["ref"])
        if not c or c[1] != "1" or Decimal(c[3]) != e["amount"]:
            failures.append("%s %s: credits %s" % (client, key, c))
    calls = Counter(int(a[2]) for a in auths.values())
    # The listener's dedup record (scope dupguard.amqp.scope, key = message-id) commits with the credit.
    scope = next((a.split("=", 1)[1] for a in args.app_arg if a.startswith("--dupguard.amqp.scope=")), "credits")
    undeduped = [r[0] for r in psql(
        "select c.payment_ref from example_credits_v2 c where c.payment_ref in (%s) and not exists (select 1"
        " from dupguard_idempotency d where d.scope = '%s' and d.idem_key = c.payment_ref and d.status = 'C');"
        % (ref_list, scope))]
    for r in undeduped:
        failures.append("credit %s has no completed dedup record" % r)
    stray = psql("select count(*) from example_payments_v2 where account like '%s-%%' and payment_ref not in (%s);"
                 % (run, ref_list))[0][0]
    if stray != "0":
        failures.append("%s payment rows for keys no client got a 201 for" % stray)
    expected_balance = defaultdict(Decimal)
    for e in stats.paid.values():
        expected_balance[e["account"]] += e["amount"]
    balances = {r[0]: Decimal(r[1]) for r in psql(
        "select id, balance from example_accounts where id like '%s-%%';" % run)}
    for account, amount in sorted(expected_balance.items()):
        if balances.get(account) != amount:
            failures.append("account %s: balance %s, payments sum %s" % (account, balances.get(account), amount))
    if "%s-acc-keyless" % run in balances:
        failures.append("the keyless credit was applied")
    tasks = dict((r[0], int(r[1])) for r in psql(
        "select state, count(*) from %s where dedup_key in (%s) group by state;" % (names["retry_table"], ref_list)))
    if any(s != "S" for s in tasks) or sum(tasks.values()) != len(refs):
        failures.append("outbox tasks of the payments: %s" % tasks)
    open_tasks = int(psql("select count(*) from %s where state <> 'S';" % names["retry_table"])[0][0])
    if open_tasks:
        failures.append("%d outbox tasks not succeeded" % open_tasks)
    q = rabbit.queue(names["queue"]) or {}
    dead = rabbit.peek(names["queue"] + ".dlq", 1000)
    dead_ids = Counter((m["properties"].get("headers") or {}).get("chaos") for m in dead)
    deaths = Counter(max(d.get("count", 0) for d in (m["properties"].get("headers") or {}).get("x-death", [{}]))
                     for m in dead)
    want = Counter(injected["keyless"] + injected["poison"])
    if dead_ids != want:
        failures.append("dead-letter queue holds %s, injected %s" % (dict(dead_ids), dict(want)))
    if set(deaths) - {1}:
        failures.append("dead-lettered more than once: x-death counts %s" % dict(deaths))
    keyless_lines = 0
    for f in glob.glob(os.path.join(logdir, "app-*.log")):
        with open(f, errors="replace") as fh:
            keyless_lines += sum(1 for line in fh if "without an idempotency key from queue" in line
                                 and "WARN" in line)
    if keyless_lines != len(injected["keyless"]):
        failures.append("%d keyless warnings in the logs for %d keyless messages" % (
            keyless_lines, len(injected["keyless"])))

    print()
    print("run %s (%s mode, %.1f min of kills, %d clients + %d double-click pairs)" % (
        run, args.mode, args.minutes, args.clients, args.pairs))
    print("  kills %d, starts %d, up %.1f-%.1f s between kills" % (kills, app.starts, min(up or [0]), max(up or [0])))
    print("  requests %d, retries %d, statuses %s" % (stats.requests, stats.retries, dict(sorted(
        stats.statuses.items(), key=lambda kv: str(kv[0])))))
    print("  keys with a 201: %d; payment rows per key %s" % (len(stats.paid), dict(rows_per_key)))
    print("  authorisation rows %d for %d references; calls per authorisation %s" % (
        len(auths), len(refs), dict(sorted(calls.items()))))
    print("  credits %d for %d payments; accounts %d, balance = sum of payments: %s" % (
        sum(1 for c in credits.values()), len(refs), len(expected_balance),
        all(balances.get(a) == v for a, v in expected_balance.items())))
    print("  credits without a completed dedup record: %d" % len(undeduped))
    print("  outbox tasks of the payments by state %s, open tasks in the table %d; credits queue %s ready, %s unacked" % (
        tasks, open_tasks, q.get("messages_ready"), q.get("messages_unacknowledged")))
    print("  dead-letter queue %d messages (injected %d keyless + %d poison), x-death counts %s; keyless warnings %d"
          % (len(dead), len(injected["keyless"]), len(injected["poison"]), dict(deaths), keyless_lines))
    if failures:
        print("FAILURES (%d):" % len(failures))
        for f in failures[:50]:
            print("  " + f)
        raise SystemExit(1)
    print("  no failures")


if __name__ == "__main__":
    main()
