package dev.locksmith.chaos;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockException;
import dev.locksmith.core.LockListener;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Watches a holder through a fault: as a listener of the holder's client, when its lease was first
 * reported lost; and, on a thread of its own, the last moment the lease was valid.
 */
final class HolderWatch implements LockListener {
  private final AtomicLong lostAt = new AtomicLong();

  @Override
  public void lost(LockEvent event, String reason) {
    lostAt.compareAndSet(0, System.nanoTime());
  }

  /** When a loss was first reported, or 0 while none was. */
  long lostAt() {
    return lostAt.get();
  }

  /**
   * Releases {@code held} after the fault. A lease already lost may fail to release: the store ends
   * it by itself (a Redis key by its TTL, a ZooKeeper node with its session).
   */
  static void release(Lease held) {
    try {
      held.close();
    } catch (LockException e) {
      // lost already: nothing left to release
    }
  }

  /**
   * Starts watching {@code held} every 0.5 ms on the thread {@code holder-watch}; the call returns
   * the last moment the lease was valid (bounded: 60 s).
   */
  static Async.Call<Long> lastValidMoment(Lease held) {
    return Async.start(
        "holder-watch",
        () -> {
          long lastValid = System.nanoTime();
          long until = lastValid + TimeUnit.SECONDS.toNanos(60);
          while (held.isValid() && System.nanoTime() - until < 0) {
            lastValid = System.nanoTime();
            LockSupport.parkNanos(500_000);
          }
          return lastValid;
        });
  }
}
