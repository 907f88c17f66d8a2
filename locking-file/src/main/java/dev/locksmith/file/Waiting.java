package dev.locksmith.file;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.Deadlines;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Waiting for a lock: polls an attempt with exponential back-off from 1 ms to {@code poll-max} with
 * jitter, and wakes early when the directory watch sees a lock file disappear. It honours the
 * timeout (empty) and interrupts ({@link InterruptedException}; nothing is held then, since a grant
 * is only ever returned).
 */
final class Waiting {
  private static final long FIRST_POLL_NANOS = 1_000_000;

  /** One attempt to acquire without waiting. */
  @FunctionalInterface
  interface Attempt {
    /** Tries once; empty when the lock is held. */
    Optional<LeaseGrant> tryAcquire(LockRequest request);
  }

  private final DirectoryWatcher watcher;
  private final long pollMaxNanos;

  Waiting(FileLockSettings settings, DirectoryWatcher watcher) {
    this.watcher = watcher;
    this.pollMaxNanos = settings.pollMax().toNanos();
  }

  /** Repeats {@code attempt} until it grants or {@code timeout} has passed. */
  Optional<LeaseGrant> acquire(LockRequest request, Duration timeout, Attempt attempt)
      throws InterruptedException {
    long deadline = Deadlines.nanosAfter(timeout);
    long backoff = Math.min(FIRST_POLL_NANOS, pollMaxNanos);
    while (true) {
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted while waiting for lock " + request.lockId());
      }
      long generation = watcher.generation();
      Optional<LeaseGrant> grant = tryInterruptibly(request, attempt);
      if (grant.isPresent()) {
        return grant;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return Optional.empty();
      }
      long pause = Math.min(backoff, left);
      pause = pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
      watcher.await(generation, pause);
      backoff = Math.min(backoff * 2, pollMaxNanos);
    }
  }

  /**
   * An interrupt during file I/O closes the channel (ClosedByInterruptException); the attempt then
   * cleans up after itself, and the waiter sees the InterruptedException the SPI promises.
   */
  private static Optional<LeaseGrant> tryInterruptibly(LockRequest request, Attempt attempt)
      throws InterruptedException {
    try {
      return attempt.tryAcquire(request);
    } catch (LockProviderException e) {
      if (e.getCause() instanceof ClosedByInterruptException || Thread.interrupted()) {
        Thread.interrupted();
        InterruptedException interrupted =
            new InterruptedException("interrupted while acquiring lock " + request.lockId());
        interrupted.initCause(e);
        throw interrupted;
      }
      throw e;
    }
  }
}
