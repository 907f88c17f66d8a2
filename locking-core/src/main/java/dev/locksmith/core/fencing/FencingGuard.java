package dev.locksmith.core.fencing;

import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An in-process guard for resources written under a lock: a write runs only if its fencing token is
 * not lower than the highest one the resource has accepted, and the check and the write happen
 * atomically per resource.
 *
 * <pre>{@code
 * guard.write("account:42", Locks.current().fencingToken(), () -> store.put(42, balance));
 * }</pre>
 *
 * <p>A database does the same with a fence column in the row it updates:
 *
 * <pre>{@code
 * UPDATE account SET balance = ?, fence = ? WHERE id = ? AND fence <= ?
 * -- 0 rows: a later holder has written; roll back and treat the lease as lost
 * }</pre>
 */
public final class FencingGuard {
  private static final class Resource {
    final ReentrantLock mutex = new ReentrantLock();
    long highest = Long.MIN_VALUE;
  }

  private final ConcurrentHashMap<String, Resource> resources = new ConcurrentHashMap<>();

  /** Creates a guard that has seen no tokens. */
  public FencingGuard() {}

  /**
   * Runs {@code write} if {@code token} is not lower than the highest accepted for the resource,
   * then records the token.
   *
   * @param <T> the write's result type
   * @param resource the resource written
   * @param token the writer's fencing token
   * @param write the write, run only for a token high enough
   * @return the write's result
   * @throws StaleFencingTokenException when a higher token was accepted before; nothing is written
   * @throws Exception whatever the write throws; the token is not recorded then
   */
  public <T> T write(String resource, long token, Callable<T> write) throws Exception {
    Resource state = resources.computeIfAbsent(resource, r -> new Resource());
    state.mutex.lock();
    try {
      if (token < state.highest) {
        throw new StaleFencingTokenException(resource, token, state.highest);
      }
      T result = write.call();
      state.highest = token;
      return result;
    } finally {
      state.mutex.unlock();
    }
  }

  /**
   * The highest token accepted for the resource, if any.
   *
   * @param resource the resource
   * @return that token, if any
   */
  public OptionalLong highest(String resource) {
    Resource state = resources.get(resource);
    if (state == null) {
      return OptionalLong.empty();
    }
    state.mutex.lock();
    try {
      return state.highest == Long.MIN_VALUE
          ? OptionalLong.empty()
          : OptionalLong.of(state.highest);
    } finally {
      state.mutex.unlock();
    }
  }
}
