package dev.locksmith.redis;

import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockRequest;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Whether the provider is open, and its acquires and synchronous releases in flight, so that
 * closing lets each finish (an acquire giving back what it took after the close) before the client
 * is shut down: shut down first, an acquire's or a release's reply was cut and the lock stayed held
 * for its whole TTL.
 */
final class AcquiresInFlight {
  /** An acquire, run by {@link #run}. */
  @FunctionalInterface
  interface Acquire<T, E extends Exception> {
    Optional<T> run() throws E;
  }

  private final String description;
  private final Consumer<LockRequest> giveBack;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition idle = lock.newCondition();
  private boolean closed;
  private int running;

  /**
   * @param description the provider, for messages
   * @param giveBack releases a request's lock if its owner token holds it, best effort, in a way
   *     that closing waits for
   */
  AcquiresInFlight(String description, Consumer<LockRequest> giveBack) {
    this.description = description;
    this.giveBack = giveBack;
  }

  /**
   * Runs {@code acquire} of {@code requests} as an acquire in flight, which {@link #awaitNone} lets
   * finish. When the provider was closed meanwhile, a grant is given back and becomes an {@link
   * IllegalStateException}: nobody would renew or release it. So is every lock of a set that ended
   * otherwise: a set taken one by one releases what it took when it fails, and that release is
   * refused once the provider is closed. (One lock whose acquire failed needs nothing more: a lost
   * reply is compensated where it is lost.)
   *
   * @throws IllegalStateException when the provider is closed
   */
  <T, E extends Exception> Optional<T> run(List<LockRequest> requests, Acquire<T, E> acquire)
      throws E {
    if (!enter()) {
      throw closedError();
    }
    Optional<T> grant = Optional.empty();
    boolean closedMeanwhile;
    try {
      grant = acquire.run();
    } finally {
      // Before counting out, so that the close waits for these releases too. A close that begins
      // after this check finds a lease held, which ends by its TTL as every lease held then.
      closedMeanwhile = isClosed();
      if (closedMeanwhile && (grant.isPresent() || requests.size() > 1)) {
        requests.forEach(giveBack);
      }
      exit();
    }
    if (closedMeanwhile && grant.isPresent()) {
      throw new IllegalStateException(
          "Lock provider "
              + description
              + " was closed while acquiring lock "
              + LockIdText.quoted(requests.get(0).lockId())
              + (requests.size() > 1 ? " and " + (requests.size() - 1) + " more" : "")
              + "; the lock was given back");
    }
    return grant;
  }

  /**
   * Runs {@code release}, a synchronous release, as a call in flight that {@link #awaitNone} lets
   * finish: with the client shut down under it, its answer was cut and the lock stayed held for its
   * whole TTL.
   *
   * @throws IllegalStateException when the provider is closed
   */
  boolean release(BooleanSupplier release) {
    if (!enter()) {
      throw closedError();
    }
    try {
      return release.getAsBoolean();
    } finally {
      exit();
    }
  }

  /**
   * Throws when the provider is closed.
   *
   * @throws IllegalStateException when it is
   */
  void checkOpen() {
    if (isClosed()) {
      throw closedError();
    }
  }

  private IllegalStateException closedError() {
    return new IllegalStateException("Lock provider " + description + " is closed");
  }

  /** Whether {@link #close()} has run. */
  boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }

  /** Counts an acquire in, unless the provider is closed: then it returns false. */
  private boolean enter() {
    lock.lock();
    try {
      if (closed) {
        return false;
      }
      running++;
      return true;
    } finally {
      lock.unlock();
    }
  }

  private void exit() {
    lock.lock();
    try {
      if (--running == 0) {
        idle.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Closes the provider to new acquires.
   *
   * @return false when it was closed already
   */
  boolean close() {
    lock.lock();
    try {
      boolean wasOpen = !closed;
      closed = true;
      return wasOpen;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until no acquire runs, at most until {@code deadline} ({@link System#nanoTime()}).
   *
   * @return how many still ran then
   */
  int awaitNone(long deadline) throws InterruptedException {
    lock.lock();
    try {
      while (running > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        idle.await(left, TimeUnit.NANOSECONDS);
      }
      return running;
    } finally {
      lock.unlock();
    }
  }
}
