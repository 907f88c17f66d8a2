package dev.locksmith.zookeeper;

import dev.locksmith.core.LockProviderException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * Every ZooKeeper call of a provider, bounded by the provider's {@code timeout}: Curator's blocking
 * calls wait for a connection and retry on their own for longer than a lock call may take, so each
 * runs on a daemon thread while the caller waits at most {@code timeout}. Answers that mean
 * something for a lease ({@link KeeperException.NoNodeException}, {@link
 * KeeperException.BadVersionException}, {@link KeeperException.NodeExistsException}) reach the
 * caller as they are; any other failure becomes a {@link LockProviderException} naming the action,
 * the lock and the ensemble. The calls run on at most {@value #MAX_THREADS} threads per provider,
 * however many callers wait; a call whose caller gave up before a thread took it is dropped, unless
 * it ends a lease ({@link #callEvenIfGivenUp}).
 */
final class ZkCalls {
  private static final AtomicInteger THREADS = new AtomicInteger();

  /** A ZooKeeper call. */
  interface Call<T> {
    T run() throws Exception;
  }

  /** The most threads one provider's calls run on; more calls wait their turn within timeout. */
  static final int MAX_THREADS = 16;

  private final ThreadPoolExecutor threads =
      new ThreadPoolExecutor(
          MAX_THREADS,
          MAX_THREADS,
          30,
          TimeUnit.SECONDS,
          new LinkedBlockingQueue<>(),
          task -> {
            Thread thread = new Thread(task, "locksmith-zk-call-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          });
  private final long timeoutNanos;
  private final String description;

  ZkCalls(Duration timeout, String description) {
    this.timeoutNanos = timeout.toNanos();
    this.description = description;
    threads.allowCoreThreadTimeOut(true);
  }

  /**
   * Runs {@code call}, waiting at most the timeout. When the caller gives up before a thread took
   * the call (every thread was busy), the call is not run at all.
   *
   * @param late called with the result when the call completes after the caller gave up (so a node
   *     it created can be removed), or {@code null}
   */
  <T> T call(String action, String lockId, Call<T> call, @Nullable Consumer<T> late)
      throws KeeperException, InterruptedException {
    return call(action, lockId, call, late, false);
  }

  private <T> T call(
      String action, String lockId, Call<T> call, @Nullable Consumer<T> late, boolean always)
      throws KeeperException, InterruptedException {
    CompletableFuture<T> future = new CompletableFuture<>();
    // Claimed by whichever comes first: the thread that runs the call, or the caller giving up.
    AtomicBoolean claimed = new AtomicBoolean();
    try {
      threads.execute(
          () -> {
            if (!claimed.compareAndSet(false, true) && !always) {
              return;
            }
            try {
              future.complete(call.run());
            } catch (Throwable e) {
              future.completeExceptionally(e);
            }
          });
    } catch (RejectedExecutionException e) {
      throw new LockProviderException("ZooKeeper " + description + ": provider closed", e);
    }
    try {
      return future.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      giveUp(claimed, future, late);
      throw failure(action, lockId, "no answer within " + timeoutNanos / 1_000_000 + " ms", e);
    } catch (InterruptedException e) {
      giveUp(claimed, future, late);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = Objects.requireNonNullElse(e.getCause(), e);
      if (cause instanceof KeeperException.NoNodeException
          || cause instanceof KeeperException.BadVersionException
          || cause instanceof KeeperException.NodeExistsException) {
        throw (KeeperException) cause;
      }
      if (cause instanceof InterruptedException) {
        throw failure(action, lockId, "interrupted", cause);
      }
      throw failure(action, lockId, String.valueOf(cause), cause);
    }
  }

  /** The longest a call waits for its answer. */
  long timeoutNanos() {
    return timeoutNanos;
  }

  /**
   * Like {@link #call}, on a thread whose interrupt flag is set too (as {@link
   * dev.locksmith.core.spi.Uninterruptibly} runs a call); an interrupt during the call counts as a
   * failure of the call.
   */
  <T> T callUninterrupted(String action, String lockId, Call<T> call) throws KeeperException {
    return callUninterrupted(action, lockId, call, false);
  }

  /**
   * Like {@link #callUninterrupted}, but the call runs even when its caller gave up before a thread
   * took it: for the calls that end a lease, whose node must go whether or not anyone still waits.
   */
  <T> T callEvenIfGivenUp(String action, String lockId, Call<T> call) throws KeeperException {
    return callUninterrupted(action, lockId, call, true);
  }

  private <T> T callUninterrupted(String action, String lockId, Call<T> call, boolean always)
      throws KeeperException {
    boolean interrupted = Thread.interrupted();
    try {
      return call(action, lockId, call, null, always);
    } catch (InterruptedException e) {
      interrupted = true;
      throw failure(action, lockId, "interrupted", e);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static <T> void giveUp(
      AtomicBoolean claimed, CompletableFuture<T> future, @Nullable Consumer<T> late) {
    if (claimed.compareAndSet(false, true)) {
      return; // not started, and now never run (unless it must run all the same)
    }
    if (late != null) {
      // Without a thread: the call's own thread hands on a result that comes after all; a call
      // that failed after all has nothing to undo.
      future.thenAccept(late);
    }
  }

  LockProviderException failure(String action, String lockId, String why, Throwable cause) {
    return LockProviderException.callFailed("ZooKeeper " + description, action, lockId, why, cause);
  }

  void close() {
    threads.shutdown();
  }
}
