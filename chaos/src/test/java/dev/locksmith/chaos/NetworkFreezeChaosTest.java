package dev.locksmith.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.testkit.ChildJvm;
import dev.locksmith.testkit.FaultProxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Scenario 7: the holder's network path freezes (no process is paused). A holder JVM reaches the
 * server through a {@link FaultProxy}; each round the test freezes both directions while the holder
 * runs its critical section, then takes the lock from its own JVM. The holder must stop trusting
 * its lease at its deadline, within a sweeper tick, however long its renewal call hangs, and its
 * critical section must end before the other JVM's begins.
 */
class NetworkFreezeChaosTest {
  static final String TITLE = "Holder's network path frozen (no pause)";
  private static final Duration TTL = Duration.ofMillis(400);
  private static final int ROUNDS = 100;
  private static final Duration SWEEPER_TICK = Duration.ofMillis(10);

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = Backend.Kind.class,
      names = {"TCP", "REDIS", "JDBC", "ZOOKEEPER"})
  void aFrozenHolderStopsAtItsDeadlineBeforeAnyoneElseHolds(Backend.Kind kind) throws Exception {
    Path dir = WorkDirs.fresh("7-freeze-" + kind.name().toLowerCase());
    Path results = dir.resolve("holder-results");
    List<String> violations = new ArrayList<>();
    List<Long> gaps = new ArrayList<>();
    List<Long> margins = new ArrayList<>();
    Figures figures = new Figures().millis("ttl", TTL).put("rounds", ROUNDS);
    try (Backend backend = kind.start(dir, false);
        Client other = Client.connect(backend.url());
        FaultProxy proxy = proxyTo(backend.url());
        ChildJvm holder =
            Workers.start(
                FrozenPathHolder.class,
                dir.resolve("holder.log"),
                backend.urlThrough(proxy.port()),
                "frozen",
                TTL.toString(),
                results.toString())) {
      for (int round = 0; round < ROUNDS; round++) {
        holder.send("hold");
        String held = awaitLine(results, "held " + round + " ", holder);
        long holderToken = Long.parseLong(held.split(" ")[2]);
        proxy.freeze(FaultProxy.Direction.TO_SERVER);
        proxy.freeze(FaultProxy.Direction.TO_CLIENT);
        long otherAcquiredAt;
        long otherToken;
        try (Lease lease =
            other
                .locksmith()
                .acquire(
                    LockOptions.named("frozen")
                        .withTtl(Duration.ofSeconds(10))
                        .withWaitTimeout(Duration.ofSeconds(10)))) {
          otherAcquiredAt = System.nanoTime();
          otherToken = lease.fencingToken();
        }
        String[] lost = awaitLine(results, "lost " + round + " ", holder).split(" ");
        long lastValid = Long.parseLong(lost[2]);
        long knownDeadline = Long.parseLong(lost[3]);
        long lostEvent = Long.parseLong(lost[4]);
        proxy.thaw();
        holder.send("next");
        if (lostEvent == 0) {
          violations.add("round " + round + ": the holder's loss was never reported");
        } else {
          gaps.add(lostEvent - knownDeadline);
        }
        margins.add(otherAcquiredAt - lastValid);
        if (lastValid >= otherAcquiredAt) {
          violations.add(
              "round "
                  + round
                  + ": the holder still trusted its lease "
                  + (lastValid - otherAcquiredAt) / 1000
                  + " us after the other JVM acquired");
        }
        if (otherToken <= holderToken) {
          violations.add("round " + round + ": token " + otherToken + " not above " + holderToken);
        }
      }
      holder.send("stop");
      int exit = holder.awaitExit(Duration.ofSeconds(30));
      if (exit != 0) {
        violations.add("the holder exited with " + exit);
      }
    }
    figures
        .latencies("deadline -> lost event", gaps)
        .latencies("holder's last valid moment -> other JVM acquires", margins);
    List<Long> sorted = gaps.stream().sorted().toList();
    if (!sorted.isEmpty()) {
      // The target is one sweeper tick (10 ms): a quiet run measures p99 about 3 ms. A CI machine
      // whose two cores are busy with other JVMs stalls a whole process now and then (seconds,
      // seen once), which moves the tail, not the median; so the median is held to a tick and the
      // p99 to a bound that a loss noticed only when the renewal call gives up (10-15 s) misses by
      // far. Safety (no overlap, above) is asserted every round.
      long p50 = Figures.percentile(sorted, 50);
      long p99 = Figures.percentile(sorted, 99);
      if (Duration.ofNanos(p50).compareTo(SWEEPER_TICK) > 0) {
        violations.add("median from deadline to lost event " + p50 / 1000 + " us exceeds a tick");
      }
      if (Duration.ofNanos(p99).compareTo(Duration.ofMillis(250)) > 0) {
        violations.add("p99 from deadline to lost event " + p99 / 1000 + " us exceeds 250 ms");
      }
    }
    ChaosReport.record(7, TITLE, kind, figures, violations);
    assertThat(violations).as("logs in %s", dir).isEmpty();
  }

  private static FaultProxy proxyTo(String url) throws Exception {
    // jdbc:postgresql://HOST:PORT/... names its server after the "jdbc:" prefix.
    URI uri = URI.create(url.startsWith("jdbc:") ? url.substring("jdbc:".length()) : url);
    return FaultProxy.start(uri.getHost(), uri.getPort());
  }

  private static String awaitLine(Path file, String prefix, ChildJvm holder) {
    String[] found = {null};
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(5))
        .until(
            () -> {
              if (!holder.isAlive()) {
                throw new AssertionError("the holder died; see " + holder.log());
              }
              if (!Files.exists(file)) {
                return false;
              }
              for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.startsWith(prefix)) {
                  found[0] = line;
                  return true;
                }
              }
              return false;
            });
    return found[0];
  }
}
