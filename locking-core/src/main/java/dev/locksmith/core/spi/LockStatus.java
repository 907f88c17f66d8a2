package dev.locksmith.core.spi;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Who holds a lock, as a provider sees it now.
 *
 * @param lockId the lock's id
 * @param holder the current holder, or {@code null} when the lock is free
 * @param waiters how many wait for the lock, or {@code -1} when the provider cannot tell
 */
public record LockStatus(String lockId, @Nullable Holder holder, int waiters) {

  /**
   * The current holder, if any.
   *
   * @return the current holder, if any
   */
  public Optional<Holder> currentHolder() {
    return Optional.ofNullable(holder);
  }

  /**
   * The holder of a lock.
   *
   * @param owner the holder's readable description (host, pid, thread)
   * @param fencingToken the fencing token of the holder's lease
   * @param timeLeft how long the lease has left
   */
  public record Holder(String owner, long fencingToken, Duration timeLeft) {}
}
