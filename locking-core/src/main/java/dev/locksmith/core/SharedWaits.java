package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * This process's waiters of each lock id queue here, first come first served, behind one
 * outstanding remote wait: only the head of a lock id's queue waits on the provider (one {@code
 * ACQUIRE} on a lock server, one subscription on Redis), and the next one starts its remote wait as
 * soon as the head's returns. So a thousand threads waiting for one lock cost the store one waiter,
 * and no limit of a server or a client library on waits per connection is reachable by one process.
 * Every grant is still the provider's own, with its own owner and fencing token.
 *
 * <p>The queue is a fair {@link ReentrantLock} per (provider, lock id), created on first use and
 * dropped when its last waiter leaves; it never holds a monitor, so virtual threads are not pinned.
 */
final class SharedWaits {
  private final ConcurrentHashMap<WaitKey, Queue> queues = new ConcurrentHashMap<>();

  /** A remote wait of the provider, given the time left. */
  @FunctionalInterface
  interface RemoteWait {
    Optional<LeaseGrant> await(Duration left) throws InterruptedException;
  }

  /**
   * Waits in the local queue of {@code lockId} on {@code provider}, then, at its head, runs {@code
   * remote} with the time left of {@code timeoutNanos}.
   *
   * @return the remote wait's grant, or empty when the time ran out in the local queue or remotely
   * @throws InterruptedException if interrupted in the local queue or remotely; nothing is held
   */
  Optional<LeaseGrant> await(
      LockProvider provider, String lockId, long timeoutNanos, Ticker ticker, RemoteWait remote)
      throws InterruptedException {
    long start = ticker.read();
    WaitKey key = new WaitKey(provider, lockId);
    Queue queue = join(key);
    try {
      if (!queue.head.tryLock(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS)) {
        return Optional.empty();
      }
      try {
        long left = Math.max(0, timeoutNanos - (ticker.read() - start));
        return remote.await(Duration.ofNanos(left));
      } finally {
        queue.head.unlock();
      }
    } finally {
      leave(key);
    }
  }

  /** How many lock ids have waiters queued now (for tests). */
  int queuedLockIds() {
    return queues.size();
  }

  private Queue join(WaitKey key) {
    return queues.compute(
        key,
        (k, queue) -> {
          Queue joined = queue == null ? new Queue() : queue;
          joined.members++;
          return joined;
        });
  }

  private void leave(WaitKey key) {
    queues.computeIfPresent(key, (k, queue) -> --queue.members == 0 ? null : queue);
  }

  private record WaitKey(LockProvider provider, String lockId) {}

  /** One lock id's queue; {@code members} changes only inside the map's compute, per key. */
  private static final class Queue {
    final ReentrantLock head = new ReentrantLock(true);
    int members;
  }
}
