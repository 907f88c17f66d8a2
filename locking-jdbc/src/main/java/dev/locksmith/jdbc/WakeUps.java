package dev.locksmith.jdbc;

import dev.locksmith.core.spi.WakeSignal;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The waiters of one provider by stored lock id. A release by this provider, a notification from
 * the database, or a reconnect of the listening connection (when notifications may have been
 * missed) wakes them to try again. No monitors are held while waiting.
 */
final class WakeUps {
  private final ConcurrentHashMap<String, Set<Waiter>> waiters = new ConcurrentHashMap<>();

  /** One waiter's wake-up signal. */
  static final class Waiter {
    private final String lockId;
    private final WakeSignal signal = new WakeSignal();

    private Waiter(String lockId) {
      this.lockId = lockId;
    }

    /** Waits until woken or {@code nanos} pass; a wake-up since the last wait counts at once. */
    void await(long nanos) throws InterruptedException {
      signal.await(nanos);
    }

    void wake() {
      signal.wake();
    }
  }

  Waiter register(String storedId) {
    Waiter waiter = new Waiter(storedId);
    waiters.compute(
        storedId,
        (id, set) -> {
          Set<Waiter> present = set == null ? ConcurrentHashMap.newKeySet() : set;
          present.add(waiter);
          return present;
        });
    return waiter;
  }

  void unregister(Waiter waiter) {
    waiters.computeIfPresent(
        waiter.lockId,
        (id, set) -> {
          set.remove(waiter);
          return set.isEmpty() ? null : set;
        });
  }

  void wake(String storedId) {
    Set<Waiter> set = waiters.get(storedId);
    if (set != null) {
      set.forEach(Waiter::wake);
    }
  }

  void wakeAll() {
    waiters.values().forEach(set -> set.forEach(Waiter::wake));
  }

  /** How many waiters wait on {@code storedId} in this provider. */
  int count(String storedId) {
    Set<Waiter> set = waiters.get(storedId);
    return set == null ? 0 : set.size();
  }
}
