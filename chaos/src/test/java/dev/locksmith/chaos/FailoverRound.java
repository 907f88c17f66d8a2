package dev.locksmith.chaos;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * One round of the Redis topology scenarios (11-13): a client holds a lock (TTL 6 s, renewed every
 * 2 s), {@value #WAITERS} waiters in clients of their own wait for it ({@code waitTimeout} 30 s),
 * the lock's keys are confirmed on the replicas, a fault is injected (a master killed, a slot
 * moved), one more waiter starts its acquire right after it (its first call meets the fault), the
 * fault is waited out, the holder keeps its lease until a renewal after the fault is confirmed (or
 * the lease is lost) and then releases it; each waiter then takes the lock for a 20 ms section.
 * Every client is its own engine and Redisson client in the test JVM, so grants and sections are
 * timed on one clock.
 *
 * <p>A waiter's {@code WAIT} rides through the outage (the engine retries it until its {@code
 * waitTimeout}), and the topology serves the slot again within seconds, long before any waiter's
 * {@code waitTimeout}: so every waiter must be served. A timeout caused by the outage is the rule's
 * end only for an outage that outlasts the wait, which this one does not: it is a violation here,
 * as is a provider error (the wait did not ride through) or any other failure.
 */
final class FailoverRound {
  static final int WAITERS = 3;
  static final Duration TTL = Duration.ofSeconds(6);
  static final Duration WAIT_TIMEOUT = Duration.ofSeconds(30);
  // A renewal is due every TTL/3 = 2 s; one confirmed after the fault shows within that plus the
  // retry of a renewal that failed during it; the lease's own deadline ends the wait earlier.
  private static final Duration RENEWAL_BOUND = TTL.plusSeconds(4);

  /** A step of the round against the topology, such as killing a master and awaiting failover. */
  @FunctionalInterface
  interface Step {
    void run() throws Exception;
  }

  /** Counts the waiters' subscriptions to the lock's channel on the servers. */
  @FunctionalInterface
  interface Subscribers {
    long count() throws Exception;
  }

  /**
   * What the round measured.
   *
   * @param faultAt when the fault was injected
   * @param faultDoneAt when the topology served the lock's slot again
   * @param renewedAt when a renewal after the fault was seen, or 0 when the lease was lost first
   * @param lostAt when the holder's lease was reported lost, or 0
   * @param holderEnd the end of the holder's section: its release, or its last valid moment
   * @param failures the waiters whose acquire threw, each classified
   * @param violations overlaps, tokens out of order and waiters not served within their timeout
   */
  record Result(
      long faultAt,
      long faultDoneAt,
      long renewedAt,
      long lostAt,
      long holderEnd,
      long holderToken,
      List<WaiterTurn> turns,
      List<WaitFailure> failures,
      List<String> violations) {

    /** The first waiter's grant, or 0 when none was granted. */
    long firstGrant() {
      return turns.isEmpty() ? 0 : turns.get(0).grantedAt();
    }

    /** The figures every topology scenario reports. */
    Figures figures(String topology) {
      long overlaps = violations.stream().filter(v -> v.contains("overlap")).count();
      long tokenOrder = violations.stream().filter(v -> v.contains("fencing")).count();
      long unserved = violations.stream().filter(v -> v.contains("not served")).count();
      Figures figures =
          new Figures()
              .put("topology", topology)
              .put("waiters (queued before the fault + started right after it)", WAITERS + " + 1")
              .millis("lease TTL", TTL)
              .millis("waitTimeout", WAIT_TIMEOUT)
              .put("overlaps", overlaps)
              .put("token order violations", tokenOrder)
              .put("waiters not served within waitTimeout", unserved)
              .put(
                  "waiters that rode through an outage",
                  turns.stream().filter(WaiterTurn::rodeOutage).count())
              .put(
                  "waiters timed out through the outage",
                  count(WaitFailure.Outcome.TIMED_OUT_THROUGH_OUTAGE))
              .put(
                  "waiters failed with a provider error", count(WaitFailure.Outcome.PROVIDER_ERROR))
              .put("holder's lease lost across the fault", lostAt != 0)
              .put(
                  "fencing tokens (holder; waiters in grant order)",
                  holderToken
                      + "; "
                      + turns.stream()
                          .map(t -> Long.toString(t.token()))
                          .collect(Collectors.joining(", ")))
              .millis("fault -> topology serving again", faultDoneAt - faultAt);
      if (renewedAt != 0) {
        figures.millis("fault -> holder's first renewal after it", renewedAt - faultAt);
      }
      if (!turns.isEmpty()) {
        figures
            .millis("fault -> first waiter granted (time to service)", firstGrant() - faultAt)
            .millis("holder's release -> first waiter granted", firstGrant() - holderEnd);
        List<Long> handOffs = new ArrayList<>();
        for (int i = 1; i < turns.size(); i++) {
          handOffs.add(turns.get(i).grantedAt() - turns.get(i - 1).releasedAt());
        }
        figures.latencies("hand-off between waiters", handOffs);
        turns.stream()
            .filter(t -> t.index() == WAITERS)
            .findFirst()
            .ifPresent(
                late -> figures.millis("fault -> late waiter granted", late.grantedAt() - faultAt));
      }
      return figures;
    }

    private long count(WaitFailure.Outcome outcome) {
      return failures.stream().filter(f -> f.outcome() == outcome).count();
    }
  }

  private FailoverRound() {}

  /**
   * Runs the round on the provider {@code url}.
   *
   * @param replicated waits until the lock's keys reached the replicas that may take over
   * @param fault injects the fault
   * @param recovered returns once the topology serves the lock's slot again
   * @param subscribers the waiters' subscriptions now, to know they all wait
   */
  static Result run(
      String url,
      String lockId,
      Step replicated,
      Step fault,
      Step recovered,
      Subscribers subscribers)
      throws Exception {
    HolderWatch watch = new HolderWatch();
    List<Client> clients = new ArrayList<>();
    try (Client holder = Client.connect(url, watch)) {
      LockOptions options = LockOptions.named(lockId).withTtl(TTL);
      LockOptions waiting = options.withWaitTimeout(WAIT_TIMEOUT);
      Lease held = holder.locksmith().acquire(options);
      long heldAt = System.nanoTime();
      Async.Call<Long> lastValidMoment = HolderWatch.lastValidMoment(held);
      List<Async.Call<WaiterTurn>> waiters = new ArrayList<>();
      for (int i = 0; i < WAITERS; i++) {
        waiters.add(WaiterTurn.start(url, clients, waiting, i));
      }
      Readiness.awaitParked(waiters.stream().map(Async.Call::thread).toList());
      // The late waiter's client has taken a lock of its own before (connected, the server's
      // eviction policy checked): a running client whose acquire starts right after the fault.
      Client late = Client.connect(url);
      clients.add(late);
      late.locksmith().acquire(LockOptions.named(lockId + "-warm-up").withTtl(TTL)).close();
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> subscribers.count() >= WAITERS);
      replicated.run();

      long faultAt = System.nanoTime();
      fault.run();
      waiters.add(Async.start("late-waiter", () -> WaiterTurn.take(late, waiting, WAITERS)));
      recovered.run();
      long faultDoneAt = System.nanoTime();
      long renewedAt = awaitRenewal(held);
      long releasedAt = System.nanoTime();
      HolderWatch.release(held);
      long lastValid = lastValidMoment.result().get(70, TimeUnit.SECONDS);
      long holderEnd = Math.min(releasedAt, lastValid);

      List<String> violations = new ArrayList<>();
      List<WaitFailure> failures = new ArrayList<>();
      List<WaiterTurn> turns =
          WaiterTurn.collect(
              waiters,
              WAIT_TIMEOUT.plusSeconds(10),
              failure -> {
                failures.add(failure);
                violations.add(
                    failure.waiter()
                        + " not served within its waitTimeout (the topology served again "
                        + TimeUnit.NANOSECONDS.toMillis(faultDoneAt - faultAt)
                        + " ms after the fault): "
                        + failure.end());
              },
              name -> violations.add(name + " not served within its waitTimeout: still waiting"));
      violations.addAll(WaiterTurn.check(held.fencingToken(), heldAt, holderEnd, turns));
      return new Result(
          faultAt,
          faultDoneAt,
          renewedAt,
          watch.lostAt(),
          holderEnd,
          held.fencingToken(),
          List.copyOf(turns),
          List.copyOf(failures),
          List.copyOf(violations));
    } finally {
      clients.forEach(Client::close);
    }
  }

  /**
   * Waits until the lease's deadline moves later than it was when the fault was over (a renewal
   * confirmed after it), or the lease is no longer valid.
   *
   * @return when the renewal was seen, or 0 when the lease ended first
   */
  private static long awaitRenewal(Lease held) {
    long start = System.nanoTime();
    long deadline = start + held.timeLeft().toNanos();
    long until = start + RENEWAL_BOUND.toNanos();
    while (held.isValid() && System.nanoTime() - until < 0) {
      long now = System.nanoTime();
      if (now + held.timeLeft().toNanos() - deadline > TimeUnit.MILLISECONDS.toNanos(100)) {
        return now;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // the interval between two looks
    }
    return 0;
  }
}
