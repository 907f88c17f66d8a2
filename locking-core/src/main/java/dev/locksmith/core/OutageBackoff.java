package dev.locksmith.core;

import dev.locksmith.core.spi.LockIdText;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The pauses of a WAIT riding through a provider outage between its attempts: the first {@link
 * #FIRST}, each next one twice the last, at most {@link #MOST}; each pause is drawn at random
 * between half and all of that (jitter), so the waiters of one process do not ask again in step. A
 * pause ends early when the provider's circuit closes ({@link ProviderCircuit#awaitBack}).
 */
final class OutageBackoff {
  /** The first pause's bound. */
  static final Duration FIRST = Duration.ofMillis(50);

  /** The longest pause's bound. */
  static final Duration MOST = Duration.ofSeconds(1);

  private long bound;

  /**
   * Pauses a WAIT whose provider failed: for the next pause or the time left, whichever is shorter,
   * ended early when the circuit closes or stops. The next attempt goes through the circuit, which
   * fails it fast without calling the provider while the circuit is still open.
   *
   * @param leftNanos the time left of the wait
   * @throws LockException when interrupted
   */
  void pause(ProviderCircuit circuit, long leftNanos, String lockId) {
    if (leftNanos <= 0) {
      return;
    }
    try {
      circuit.awaitBack(Math.min(nextNanos(), leftNanos));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LockException("Interrupted while waiting for lock " + LockIdText.quoted(lockId), e);
    }
  }

  /** The next pause in nanoseconds, between half and all of its bound; the bound then doubles. */
  long nextNanos() {
    bound = bound == 0 ? FIRST.toNanos() : Math.min(MOST.toNanos(), bound * 2);
    long half = bound / 2;
    return half + ThreadLocalRandom.current().nextLong(bound - half + 1);
  }
}
