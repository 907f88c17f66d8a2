package dev.locksmith.core;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A held lock. Closing it releases the lock (or, with a minimum hold time, lets it run out then);
 * closing twice does nothing. Any thread may use and close a lease.
 */
public interface Lease extends AutoCloseable {

  /** The lock's name. */
  String name();

  /** The evaluated key, or {@code null} when the lock has none. */
  @Nullable String key();

  /** The lock id: {@code name} or {@code name:key}. */
  String lockId();

  /**
   * The fencing token: strictly greater than that of every earlier grant of this lock. Send it with
   * every write to the protected resource, which must refuse a token lower than one it has seen.
   */
  long fencingToken();

  /** The owner token of this acquisition. */
  String ownerToken();

  /** Time left until the conservative local deadline; zero once it has passed. */
  Duration timeLeft();

  /** Whether the lease is still held: not lost, not released and before its deadline. */
  boolean isValid();

  /**
   * Throws unless the lease is still held.
   *
   * @throws LockLostException when the lease expired, was taken over or released
   */
  void checkValid();

  /** Releases the lease. A failure to release is reported to listeners, never thrown. */
  @Override
  void close();
}
