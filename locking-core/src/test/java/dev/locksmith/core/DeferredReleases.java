package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A real provider whose {@link #releaseAsync} sends nothing at once: each release waits until the
 * test answers it, and is then run on the wrapped provider on a thread of this wrapper's own (named
 * {@code test-io-}), as a network client completes its replies on an I/O thread.
 */
final class DeferredReleases extends ForwardingProvider {
  /** A release sent and not yet answered. */
  record Pending(LeaseGrant lease, CompletableFuture<Boolean> answer) {}

  final BlockingQueue<Pending> pending = new LinkedBlockingQueue<>();
  private final ExecutorService io =
      Executors.newSingleThreadExecutor(
          task -> {
            Thread thread = new Thread(task, "test-io-" + System.identityHashCode(task));
            thread.setDaemon(true);
            return thread;
          });

  DeferredReleases(LockProvider delegate) {
    super(delegate);
  }

  @Override
  public CompletionStage<Boolean> releaseAsync(LeaseGrant lease) {
    CompletableFuture<Boolean> answer = new CompletableFuture<>();
    pending.add(new Pending(lease, answer));
    return answer;
  }

  /** Waits up to 10 s for the next release sent. */
  Pending next() throws InterruptedException {
    Pending next = pending.poll(10, TimeUnit.SECONDS);
    if (next == null) {
      throw new AssertionError("no release was sent within 10 s");
    }
    return next;
  }

  /** Runs the next release on the wrapped provider, answering on the I/O thread. */
  void confirmNext() throws InterruptedException {
    answerNext(p -> delegate.release(p.lease()));
  }

  /** Answers the next release with what {@code answer} gives (or throws), on the I/O thread. */
  void answerNext(Function<Pending, Boolean> answer) throws InterruptedException {
    Pending next = next();
    io.execute(
        () -> {
          try {
            next.answer().complete(answer.apply(next));
          } catch (RuntimeException e) {
            next.answer().completeExceptionally(e);
          }
        });
  }

  @Override
  public void close() {
    io.shutdownNow();
    super.close();
  }
}
