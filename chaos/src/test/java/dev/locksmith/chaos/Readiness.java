package dev.locksmith.chaos;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Waits until waiter threads have begun to wait. Where the provider counts its waiters (the TCP
 * server's queue) the count is exact; elsewhere each thread must have been seen blocked (parked
 * between polls, or waiting for a wake-up) at least once.
 */
final class Readiness {
  private Readiness() {}

  /** Waits until {@code expected} waiters are queued, or each of the threads was seen waiting. */
  static void awaitWaiting(Client client, String lockId, int expected, List<Thread> threads) {
    if (client.waiters(lockId) >= 0) {
      await()
          .atMost(Duration.ofSeconds(20))
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> client.waiters(lockId) == expected);
      return;
    }
    awaitParked(threads);
  }

  /** Waits until each of the threads was seen parked (waiting, with or without a timeout). */
  static void awaitParked(List<Thread> threads) {
    Set<Thread> seen = new HashSet<>();
    await()
        .atMost(Duration.ofSeconds(20))
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(2))
        .until(
            () -> {
              for (Thread thread : threads) {
                Thread.State state = thread.getState();
                if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) {
                  seen.add(thread);
                }
              }
              return seen.size() == threads.size();
            });
  }
}
