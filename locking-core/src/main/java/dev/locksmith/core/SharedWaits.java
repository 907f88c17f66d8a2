package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;

/**
 * This process's waiters of each lock id queue here, first come first served, behind one
 * outstanding remote wait: only the head of a lock id's queue waits on the provider (one {@code
 * ACQUIRE} on a lock server, one subscription on Redis), and the next one starts its remote wait as
 * soon as the head's returns. So a thousand threads waiting for one lock cost the store one waiter,
 * and no limit of a server or a client library on waits per connection is reachable by one process.
 * Every grant is still the provider's own, with its own owner and fencing token.
 *
 * <p>The queue is a fair lock per (provider, lock id), created on first use and dropped when its
 * last waiter leaves; it never holds a monitor, so virtual threads are not pinned.
 */
final class SharedWaits {
  // By provider, then lock id: no key object to make and hash on every acquisition.
  private final ConcurrentHashMap<LockProvider, ConcurrentHashMap<String, Queue>> queues =
      new ConcurrentHashMap<>();

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
    ConcurrentHashMap<String, Queue> ofProvider = queuesOf(provider);
    Queue queue = join(ofProvider, lockId);
    try {
      if (!queue.tryLock(Math.max(0, timeoutNanos))) {
        return Optional.empty();
      }
      try {
        long left = Math.max(0, timeoutNanos - (ticker.read() - start));
        return remote.await(Duration.ofNanos(left));
      } finally {
        queue.unlock();
      }
    } finally {
      leave(ofProvider, lockId, queue);
    }
  }

  /** How many lock ids have waiters queued now (for tests). */
  int queuedLockIds() {
    return queues.values().stream().mapToInt(ConcurrentHashMap::size).sum();
  }

  private ConcurrentHashMap<String, Queue> queuesOf(LockProvider provider) {
    ConcurrentHashMap<String, Queue> ofProvider = queues.get(provider);
    return ofProvider != null
        ? ofProvider
        : queues.computeIfAbsent(provider, p -> new ConcurrentHashMap<>());
  }

  /**
   * Joins the queue of {@code key}, making it when there is none. Without contention this is one
   * compare-and-set into the map, not a locked compute: most acquisitions are alone in their queue.
   */
  private static Queue join(ConcurrentHashMap<String, Queue> queues, String key) {
    Queue made = null;
    while (true) {
      Queue queue = queues.get(key);
      if (queue == null) {
        if (made == null) {
          made = new Queue();
        }
        queue = queues.putIfAbsent(key, made);
        if (queue == null) {
          return made;
        }
      }
      if (queue.tryJoin()) {
        return queue;
      }
      // Retired by its last member, who is removing it: a new queue takes its place.
      if (made == null) {
        made = new Queue();
      }
      if (queues.replace(key, queue, made)) {
        return made;
      }
    }
  }

  private static void leave(ConcurrentHashMap<String, Queue> queues, String key, Queue queue) {
    if (queue.leave()) {
      queues.remove(key, queue);
    }
  }

  /**
   * One lock id's queue: a fair lock held by its head (one object, as a queue is made for every
   * uncontended acquisition too), and how many waiters are in it. It is made with its first member;
   * once the count is back to zero it is retired for good, and a waiter that finds it then makes a
   * new one.
   */
  private static final class Queue extends AbstractQueuedSynchronizer {
    private static final long serialVersionUID = 1L;
    private static final VarHandle MEMBERS =
        FieldHandles.of(MethodHandles.lookup(), "members", int.class);

    @SuppressWarnings("unused") // through MEMBERS
    private volatile int members = 1;

    /** Becomes the head, first come first served, within {@code nanos}. */
    boolean tryLock(long nanos) throws InterruptedException {
      return tryAcquireNanos(1, nanos);
    }

    /** Leaves the head's place to the next waiter; called by the head only. */
    void unlock() {
      release(1);
    }

    @Override
    protected boolean tryAcquire(int ignored) {
      return !hasQueuedPredecessors() && compareAndSetState(0, 1);
    }

    @Override
    protected boolean tryRelease(int ignored) {
      setState(0);
      return true;
    }

    /** Joins unless the queue was retired. */
    boolean tryJoin() {
      int now;
      do {
        now = members;
        if (now == 0) {
          return false;
        }
      } while (!MEMBERS.compareAndSet(this, now, now + 1));
      return true;
    }

    /** Leaves; {@code true} when this was the last member, which retires the queue. */
    boolean leave() {
      return (int) MEMBERS.getAndAdd(this, -1) == 1;
    }
  }
}
