package dev.locksmith.benchmarks.load;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One client of a lock system, as a process holds it: thread-safe, shared by the threads that use
 * it. A lock taken by a thread is released by the same thread (some peers bind locks to threads).
 */
public interface LockClient extends AutoCloseable {

  /**
   * Takes the lock on {@code key}, waiting up to {@code wait} for it.
   *
   * @return the lock to release, or null when the wait ran out
   * @throws Exception when the lock system fails
   */
  @Nullable Held acquire(String key, Duration wait) throws Exception;

  /** Closes the client's connections. */
  @Override
  void close();

  /** A lock held by a client. */
  interface Held {
    /**
     * Releases the lock.
     *
     * @throws Exception when the lock system fails
     */
    void release() throws Exception;
  }
}
