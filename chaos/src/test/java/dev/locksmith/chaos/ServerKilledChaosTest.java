package dev.locksmith.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.testkit.zookeeper.TestZooKeeper;
import dev.locksmith.zookeeper.ZkLockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scenarios 9 and 10 (ZooKeeper only): a three-server ensemble in the test JVM ({@code
 * TestingCluster}); a client holds a lock, 5 waiters in clients of their own queue behind it, and a
 * server is killed, 3 rounds on a fresh ensemble each: the leader (9), or the server the holder is
 * connected to (10; the holder's client moves to another). The holder's lease must be reported lost
 * (its connection is suspended) before the first waiter is granted, and that grant must come within
 * 15 s of the kill; the waiters must then get the lock in the order they queued, without overlap,
 * with fencing tokens that increase across the change. A waiter's {@code WAIT} rides through the
 * outage (the engine retries it until its {@code waitTimeout}): it must be served, or time out with
 * the outage as the cause, which is counted and logged; any other end (a provider error, a timeout
 * with the provider answering) is a violation. A waiter that rode through an outage asked again and
 * may have lost its place: it is left out of the queue-order check, and counted.
 */
class ServerKilledChaosTest {
  private static final Logger LOG = LoggerFactory.getLogger(ServerKilledChaosTest.class);

  /** The server killed in each round. */
  enum Victim {
    LEADER(9, "leader", "ZooKeeper ensemble: leader killed while a lock is held"),
    HOLDERS_SERVER(
        10, "holders-server", "ZooKeeper ensemble: the holder's server killed while it holds");

    final int scenario;
    final String slug;
    final String title;

    Victim(int scenario, String slug, String title) {
      this.scenario = scenario;
      this.slug = slug;
      this.title = title;
    }

    InstanceSpec pick(TestingCluster cluster, Client holder) throws Exception {
      if (this == LEADER) {
        return TestZooKeeper.leader(cluster);
      }
      ZkLockProvider provider = (ZkLockProvider) holder.provider();
      return cluster.findConnectionInstance(provider.client().getZookeeperClient().getZooKeeper());
    }
  }

  private static final int ROUNDS = 3;
  private static final int WAITERS = 5;
  // Leases far longer than the run: a loss here comes from the fault, never from the TTL.
  private static final Duration LEASE = Duration.ofSeconds(30);
  // Sessions outlive an election, so queued waiters keep their places.
  private static final String PARAMETERS = "/chaos?sessionTimeout=10s&connectionTimeout=2s";
  // The election, the clients' reconnection and the holder's node given up take 1-2 s on a quiet
  // machine; the bound leaves room for a loaded one, and none for a queue stuck until a waiter's
  // 60 s wait runs out.
  private static final Duration REGRANT_BOUND = Duration.ofSeconds(15);

  /** What one round measured. */
  private record Round(
      long killedAt,
      long lostAt,
      long lastValid,
      long holderToken,
      List<WaiterTurn> turns,
      List<WaitFailure> timedOut,
      List<String> violations) {}

  @ParameterizedTest(name = "{0}")
  @EnumSource(Victim.class)
  void waitersKeepTheirOrderAndNeverOverlapWhenAServerDies(Victim victim) throws Exception {
    WorkDirs.fresh(victim.scenario + "-" + victim.slug + "-zookeeper");
    List<String> violations = new ArrayList<>();
    List<Long> lost = new ArrayList<>();
    List<Long> regrants = new ArrayList<>();
    List<Long> margins = new ArrayList<>();
    List<Long> handOffs = new ArrayList<>();
    long outOfOrder = 0;
    long rode = 0;
    List<String> timedOut = new ArrayList<>();
    long overlaps = 0;
    long tokenOrder = 0;
    for (int r = 0; r < ROUNDS; r++) {
      Round round;
      try (TestingCluster cluster = TestZooKeeper.cluster(3)) {
        round = round(cluster, victim, victim.slug + "-" + r);
      }
      String prefix = "round " + r + ": ";
      round.violations().forEach(v -> violations.add(prefix + v));
      List<WaiterTurn> turns = round.turns();
      lost.add(round.lostAt() - round.killedAt());
      if (!turns.isEmpty()) {
        long regrant = turns.get(0).grantedAt() - round.killedAt();
        if (regrant > REGRANT_BOUND.toNanos()) {
          violations.add(
              prefix
                  + "the first waiter was granted "
                  + regrant / 1_000_000
                  + " ms after the server was killed, bound "
                  + REGRANT_BOUND.toMillis()
                  + " ms");
        }
        regrants.add(regrant);
        margins.add(turns.get(0).grantedAt() - round.lastValid());
      }
      for (int i = 1; i < turns.size(); i++) {
        handOffs.add(turns.get(i).grantedAt() - turns.get(i - 1).releasedAt());
      }
      // Among the waiters granted without meeting an outage, each must come after those queued
      // before it. A waiter that rode through an outage asked again, so it may have queued anew;
      // one that timed out left the queue: neither is out of order.
      List<WaiterTurn> queued = turns.stream().filter(t -> !t.rodeOutage()).toList();
      long misplaced = 0;
      for (int i = 1; i < queued.size(); i++) {
        if (queued.get(i).index() < queued.get(i - 1).index()) {
          misplaced++;
        }
      }
      if (misplaced > 0) {
        violations.add(
            prefix
                + "FIFO broken: grant order "
                + turns.stream().map(t -> t.index() + (t.rodeOutage() ? "*" : "")).toList()
                + " (* rode through an outage)");
      }
      outOfOrder += misplaced;
      rode += turns.size() - queued.size();
      timedOut.addAll(round.timedOut().stream().map(f -> prefix + f).toList());
    }
    for (String v : violations) {
      if (v.contains("overlap")) {
        overlaps++;
      } else if (v.contains("fencing")) {
        tokenOrder++;
      }
    }
    Figures figures =
        new Figures()
            .put("rounds x waiters", ROUNDS + " x " + WAITERS)
            .millis("re-grant bound", REGRANT_BOUND)
            .put("overlaps", overlaps)
            .put("token order violations", tokenOrder)
            .put("grants out of queue order", outOfOrder)
            .put("waiters that rode through an outage", rode)
            .put("waiters timed out through the outage", timedOut.size())
            .latencies("server killed -> holder's lease reported lost", lost)
            .latencies("server killed -> first waiter granted", regrants)
            .latencies("holder's last valid moment -> first waiter granted", margins)
            .latencies("hand-off between waiters", handOffs);
    ChaosReport.record(victim.scenario, victim.title, Backend.Kind.ZOOKEEPER, figures, violations);
    timedOut.forEach(f -> LOG.warn("{}", f));
    assertThat(violations).isEmpty();
    assertThat(regrants).as("a waiter granted in every round").hasSize(ROUNDS);
  }

  private static Round round(TestingCluster cluster, Victim victim, String lockId)
      throws Exception {
    String url = "zk://" + cluster.getConnectString() + PARAMETERS;
    HolderWatch watch = new HolderWatch();
    List<Client> clients = new ArrayList<>();
    try (Client holder = Client.connect(url, watch);
        Client observer = Client.connect(url)) {
      LockOptions options = LockOptions.named(lockId).withTtl(LEASE);
      LockOptions waiting = options.withWaitTimeout(Duration.ofSeconds(60));
      Lease held = holder.locksmith().acquire(options);
      long heldAt = System.nanoTime();
      Async.Call<Long> lastValidMoment = HolderWatch.lastValidMoment(held);
      List<Async.Call<WaiterTurn>> waiters = new ArrayList<>();
      for (int i = 0; i < WAITERS; i++) {
        waiters.add(WaiterTurn.start(url, clients, waiting, i));
        Readiness.awaitWaiting(observer, lockId, i + 1, List.of());
      }
      InstanceSpec server = victim.pick(cluster, holder);
      long killedAt = System.nanoTime();
      if (!cluster.killServer(server)) {
        throw new IllegalStateException("could not kill " + victim.slug + " " + server);
      }
      long lastValid = lastValidMoment.result().get(60, TimeUnit.SECONDS);
      await().atMost(Duration.ofSeconds(30)).until(() -> watch.lostAt() != 0);
      HolderWatch.release(held);
      List<String> violations = new ArrayList<>();
      List<WaitFailure> timedOut = new ArrayList<>();
      // A WAIT rides through the election: a timeout caused by the outage is its rule's end,
      // counted and logged. Anything else (a provider error: the wait did not ride through;
      // a timeout with the provider answering: a lost wake-up) is a violation.
      List<WaiterTurn> turns =
          WaiterTurn.collect(
              waiters,
              Duration.ofSeconds(90),
              failure -> {
                if (failure.timedOutThroughOutage()) {
                  timedOut.add(failure);
                } else {
                  violations.add(failure.toString());
                }
              },
              name -> violations.add(name + " still waiting 90 s after the kill"));
      violations.addAll(WaiterTurn.check(held.fencingToken(), heldAt, lastValid, turns));
      if (!turns.isEmpty() && watch.lostAt() > turns.get(0).grantedAt()) {
        violations.add("the holder learned of its loss after the first waiter was granted");
      }
      return new Round(
          killedAt, watch.lostAt(), lastValid, held.fencingToken(), turns, timedOut, violations);
    } finally {
      clients.forEach(Client::close);
    }
  }
}
