package dev.locksmith.core;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A held lock. Closing it releases the lock (or, with a minimum hold time, lets it run out then);
 * closing twice does nothing. Any thread may use and close a lease.
 */
public interface Lease extends AutoCloseable {

  /**
   * The lock's name.
   *
   * @return the lock's name
   */
  String name();

  /**
   * The evaluated key, or {@code null} when the lock has none. A lease over several keys gives the
   * first of them in lock order.
   *
   * @return the evaluated key, or {@code null} when the lock has none
   */
  @Nullable String key();

  /**
   * The lock id: {@code name} or {@code name:key}; over several keys, the first one's.
   *
   * @return the lock id: {@code name} or {@code name:key}; over several keys, the first one's
   */
  String lockId();

  /**
   * The fencing token: strictly greater than that of every earlier grant of this lock. Send it with
   * every write to the protected resource, which must refuse a token lower than one it has seen.
   * Over several keys, the first one's: each key's own token is in {@link #lease(String)}.
   *
   * @return the fencing token: strictly greater than that of every earlier grant of this lock
   */
  long fencingToken();

  /**
   * The owner token of this acquisition.
   *
   * @return the owner token of this acquisition
   */
  String ownerToken();

  /**
   * Time left until the conservative local deadline; zero once it has passed.
   *
   * @return time left until the conservative local deadline; zero once it has passed
   */
  Duration timeLeft();

  /**
   * Whether the lease is still held: not lost, not released and before its deadline. Over several
   * keys, whether every key's lease is.
   *
   * @return whether the lease is still held: not lost, not released and before its deadline
   */
  boolean isValid();

  /**
   * Throws unless the lease is still held.
   *
   * @throws LockLostException when the lease expired, was taken over or released
   */
  void checkValid();

  /**
   * The lease of each key, in lock order (the keys sorted): one element, this lease, for a lock
   * with one key or none. Each has its own lock id and fencing token.
   *
   * @return the lease of each key, in lock order (the keys sorted): one element, this lease, for a
   *     lock with one key or none
   */
  default List<Lease> leases() {
    return List.of(this);
  }

  /**
   * The lease of one key.
   *
   * @param key one of the evaluated keys
   * @return that key's lease
   * @throws IllegalArgumentException when this lease does not cover the key
   */
  default Lease lease(String key) {
    for (Lease lease : leases()) {
      if (Objects.equals(lease.key(), key)) {
        return lease;
      }
    }
    throw new IllegalArgumentException(
        "Lease of '" + name() + "' has no key '" + key + "'; its keys: " + keysOf(leases()));
  }

  private static List<@Nullable String> keysOf(List<Lease> leases) {
    return leases.stream().<@Nullable String>map(Lease::key).toList();
  }

  /**
   * Releases the lease (every key's). A failure to release is reported to listeners, never thrown.
   * Only the first call releases; one made on another thread meanwhile (a shutdown hook beside the
   * main thread, say) returns once that release is under way, so that closing the engine next waits
   * for it.
   */
  @Override
  void close();
}
