package dev.locksmith.testkit;

import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The faults a {@link FaultProxy} applies to its connections: which directions are frozen, how long
 * each direction's chunks are delayed, and how many replies are still to be lost. Guarded by the
 * proxy's lock; a change of a direction wakes that direction's pipes.
 */
final class ProxyFaults {
  private static final long MAX_DELAY_NANOS = Long.MAX_VALUE / 4;

  private final ReentrantLock lock;
  private final ProxyRegistry registry;
  private final boolean[] frozen = new boolean[2];
  private final long[] delayNanos = new long[2];
  private int repliesToLose;

  /** No faults, on the connections of {@code registry}; {@code lock} guards both. */
  ProxyFaults(ReentrantLock lock, ProxyRegistry registry) {
    this.lock = lock;
    this.registry = registry;
  }

  /** Freezes or thaws {@code direction}; returns false if it already was. */
  boolean setFrozen(FaultProxy.Direction direction, boolean value) {
    lock.lock();
    try {
      if (frozen[direction.ordinal()] == value) {
        return false;
      }
      frozen[direction.ordinal()] = value;
      registry.signalAll(direction);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Delays each chunk of {@code direction} by {@code delay}.
   *
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  void setDelay(FaultProxy.Direction direction, Duration delay) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("negative delay: " + delay);
    }
    long nanos =
        delay.compareTo(Duration.ofNanos(MAX_DELAY_NANOS)) > 0 ? MAX_DELAY_NANOS : delay.toNanos();
    lock.lock();
    try {
      delayNanos[direction.ordinal()] = nanos;
      registry.signalAll(direction);
    } finally {
      lock.unlock();
    }
  }

  /** Loses one more reply. */
  void loseNextReply() {
    lock.lock();
    try {
      repliesToLose++;
    } finally {
      lock.unlock();
    }
  }

  /** Whether {@code direction} is frozen; call with the lock held. */
  boolean isFrozen(FaultProxy.Direction direction) {
    return frozen[direction.ordinal()];
  }

  /** How long each chunk of {@code direction} waits after it was read; call with the lock held. */
  long delayNanos(FaultProxy.Direction direction) {
    return delayNanos[direction.ordinal()];
  }

  /** Whether a reply is still to be lost, counting this one as lost; call with the lock held. */
  boolean takeLostReply() {
    if (repliesToLose == 0) {
      return false;
    }
    repliesToLose--;
    return true;
  }
}
