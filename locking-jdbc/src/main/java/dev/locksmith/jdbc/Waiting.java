package dev.locksmith.jdbc;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Waiting for a lock after a refused first attempt. The waiter registers for wake-ups before each
 * attempt and tries again when woken, when the holder's lease runs out, or, while no notifications
 * arrive (MySQL/MariaDB, H2, or PostgreSQL while its listening connection is down), after a pause
 * of 5 ms doubling up to {@code maxPoll}. No statement starts once the deadline has passed. Waiters
 * race for a released lock; the order is not FIFO.
 */
final class Waiting {
  private static final long FIRST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  private final LockCommands commands;
  private final WakeUps wakeUps;
  private final java.util.function.Supplier<@Nullable PgListener> listener;
  private final long maxPollNanos;
  private final String description;
  private final BooleanSupplier closed;

  Waiting(
      LockCommands commands,
      WakeUps wakeUps,
      java.util.function.Supplier<@Nullable PgListener> listener,
      Duration maxPoll,
      String description,
      BooleanSupplier closed) {
    this.commands = commands;
    this.wakeUps = wakeUps;
    this.listener = listener;
    this.maxPollNanos = maxPoll.toNanos();
    this.description = description;
    this.closed = closed;
  }

  Optional<LeaseGrant> waitFor(LockRequest request, long deadline, long holderLeftMicros)
      throws InterruptedException {
    if (deadline - System.nanoTime() <= 0) {
      return Optional.empty();
    }
    PgListener push = listener.get();
    if (push != null) {
      push.start();
    }
    WakeUps.Waiter waiter = wakeUps.register(LockIds.stored(request.lockId()));
    try {
      long poll = Math.min(FIRST_POLL_NANOS, maxPollNanos);
      long holderLeft = holderLeftMicros;
      while (true) {
        if (deadline - System.nanoTime() <= 0) {
          return Optional.empty();
        }
        if (holderLeft < 0) {
          holderLeft = commands.holderLeftMicros(request.lockId());
        }
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          return Optional.empty();
        }
        long wait = Math.min(remaining, TimeUnit.MICROSECONDS.toNanos(holderLeft) + 1_000_000);
        if (push == null || !push.listening()) {
          wait = Math.min(wait, poll);
          poll = Math.min(poll * 2, maxPollNanos);
        }
        waiter.await(wait);
        ensureOpen();
        if (deadline - System.nanoTime() <= 0) {
          return Optional.empty();
        }
        LockCommands.Attempt attempt = commands.acquire(request);
        if (attempt.grant() != null) {
          return Optional.of(attempt.grant());
        }
        holderLeft = attempt.holderLeftMicros();
      }
    } finally {
      wakeUps.unregister(waiter);
    }
  }

  private void ensureOpen() {
    if (closed.getAsBoolean()) {
      throw new LockProviderException("JDBC " + description + ": provider closed");
    }
  }
}
