package dev.locksmith.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.testkit.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Scenario 3: a holder JVM killed with SIGKILL. A waiting JVM must get the lock within TTL +
 * renewal interval + skew allowance + 1 s (file, Redis: the dead holder's lease must run out), or
 * within 1 s on the TCP server (the system closes the dead process's connection, which releases its
 * leases at once; had a reply been unread in its socket, the close would be a reset, and the lease
 * would run out at its 1 s TTL, still within the bound).
 */
class KilledHolderChaosTest {
  static final String TITLE = "Holder killed with SIGKILL";
  private static final Duration TTL = Duration.ofSeconds(1);
  private static final int ROUNDS = 3;

  @ParameterizedTest(name = "{0}")
  @EnumSource(Backend.Kind.class)
  void aWaiterTakesOverFromAKilledHolderInTime(Backend.Kind kind) throws Exception {
    Path dir = WorkDirs.fresh("3-sigkill-" + kind.name().toLowerCase());
    List<String> violations = new ArrayList<>();
    List<Long> takeOvers = new ArrayList<>();
    try (Backend backend = kind.start(dir, false);
        Client waiter = Client.connect(backend.url())) {
      Duration bound =
          kind == Backend.Kind.TCP
              ? Duration.ofSeconds(1)
              : TTL.plus(TTL.dividedBy(3)).plus(backend.expiryAllowance()).plusSeconds(1);
      for (int round = 0; round < ROUNDS; round++) {
        String lockId = "killed-" + round;
        try (KilledHolder.Started started =
            KilledHolder.start(dir, round, backend.url(), lockId, TTL)) {
          ChildJvm holder = started.jvm();
          Async.Call<Lease> waiting = KilledHolder.waitFor(waiter, lockId, round);
          if (kind.promisesFifo()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> waiter.waiters(lockId) == 1);
          }
          long killedAt = System.nanoTime();
          holder.kill();
          try (Lease lease = waiting.result().get(30, TimeUnit.SECONDS)) {
            long takeOver = System.nanoTime() - killedAt;
            takeOvers.add(takeOver);
            violations.addAll(
                started.judgeTakeOver(round, lease, takeOver, "the kill", bound, "the killed"));
          }
        }
      }
      Figures figures =
          new Figures()
              .millis("ttl", TTL)
              .millis("bound", bound)
              .put("rounds", ROUNDS)
              .latencies("kill -> acquire", takeOvers);
      ChaosReport.record(3, TITLE, kind, figures, violations);
      assertThat(violations).as("logs in %s", dir).isEmpty();
      assertThat(takeOvers).hasSize(ROUNDS);
    }
  }
}
