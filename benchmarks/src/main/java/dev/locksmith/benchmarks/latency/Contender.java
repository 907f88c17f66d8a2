package dev.locksmith.benchmarks.latency;

import java.time.Duration;

/**
 * One contender of a latency loop: takes a lock (at once if free, or waiting) and gives it back. A
 * contender holds at most one lock at a time and may be bound to the thread that took it (as
 * Curator's mutex is), so the loops call {@link #unlock} from the thread that locked.
 */
public interface Contender extends AutoCloseable {

  /** Takes {@code key} if it is free; false when it is held. */
  boolean tryLock(String key) throws Exception;

  /** Waits up to {@code wait} for {@code key}; false when it did not come. */
  boolean lock(String key, Duration wait) throws Exception;

  /** Releases the lock held. */
  void unlock() throws Exception;

  /** Closes the contender's clients. */
  @Override
  void close();
}
