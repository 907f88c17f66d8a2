package dev.locksmith.redis;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waiting for a lock after a refused first attempt: the waiter subscribes to the lock's release
 * channel ({@link WakeUps}) and tries again when a release is published or the holder's TTL runs
 * out, whichever comes first; there is no polling. No command starts once the deadline has passed.
 * Waiters race for a released lock: Redis keeps no queue, so the order is not FIFO.
 */
final class Waiting {
  // Logged under the provider's name, as operators configure it.
  private static final Logger LOG = LoggerFactory.getLogger(RedisLockProvider.class);

  private final LockCommands commands;
  private final WakeUps wakeUps;
  private final String description;
  private final BooleanSupplier closed;

  Waiting(LockCommands commands, WakeUps wakeUps, String description, BooleanSupplier closed) {
    this.commands = commands;
    this.wakeUps = wakeUps;
    this.description = description;
    this.closed = closed;
  }

  /**
   * Tries again, woken by releases, until granted or {@code deadline} ({@code nanoTime}) has
   * passed, each attempt sent through {@code attempts}; throws a {@link LockProviderException} when
   * the provider is closed meanwhile.
   */
  Optional<LeaseGrant> waitFor(
      LockRequest request, LockKeys keys, long deadline, LateCopies.Attempts attempts)
      throws InterruptedException {
    if (deadline - System.nanoTime() <= 0) {
      return Optional.empty();
    }
    WakeUps.Waiter waiter = subscribe(keys);
    try {
      while (true) {
        ensureOpen();
        if (deadline - System.nanoTime() <= 0) {
          // Never start a command after the deadline (subscribing may have used the rest).
          return Optional.empty();
        }
        // Subscribed before this attempt: a release from now on wakes the wait below.
        long sentAt = System.nanoTime();
        LockCommands.Attempt attempt =
            attempts.send(() -> commands.acquire(request, keys), LockCommands.Attempt::granted);
        if (attempt.granted()) {
          return Optional.of(attempt.grant(request, sentAt));
        }
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          return Optional.empty();
        }
        // The holder's TTL bounds the wait in case a release message is lost.
        long holderLeft =
            attempt.value() > 0
                ? TimeUnit.MILLISECONDS.toNanos(attempt.value() + 1)
                : TimeUnit.MILLISECONDS.toNanos(100);
        waiter.await(Math.min(remaining, holderLeft));
        ensureOpen();
      }
    } finally {
      wakeUps.unregister(waiter);
    }
  }

  /** For a waiter: the provider was closed while it waited. */
  private void ensureOpen() {
    if (closed.getAsBoolean()) {
      throw new LockProviderException("Redis " + description + ": provider closed");
    }
  }

  /**
   * Subscribes to the lock's release channel; when subscribing fails the waiter polls instead, so a
   * Redisson subscription hiccup slows a wait down but never fails it. A Redis that is down fails
   * the next attempt anyway.
   */
  private WakeUps.Waiter subscribe(LockKeys keys) {
    ensureOpen();
    try {
      return wakeUps.register(keys.channel());
    } catch (WakeUps.ClosedException e) {
      throw new LockProviderException("Redis " + description + ": provider closed", e);
    } catch (RuntimeException e) {
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      LOG.debug(
          "Redis {} could not subscribe to {}; polling instead: {}",
          description,
          keys.channel(),
          RedisFailures.reason(cause),
          cause);
      return WakeUps.Waiter.polling();
    }
  }
}
