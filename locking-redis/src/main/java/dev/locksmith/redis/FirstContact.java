package dev.locksmith.redis;

import dev.locksmith.core.spi.Uninterruptibly;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Keeps Redisson's lazy connection off the callers' threads. Until a client has connected once,
 * Redisson connects on the thread that sends a command, sleeping between its attempts; an interrupt
 * there (a waiter cancelled, an executor shut down) left the client without a connection pool for
 * good: every later command failed inside Redisson with a {@code NullPointerException}. So until
 * one command has been answered, commands are sent from a thread of this class, which nothing
 * interrupts, and the caller waits for the reply as it always does, without reacting to interrupts.
 * After that, commands are sent from the caller's thread as before.
 */
final class FirstContact {
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final ExecutorService senders =
      new ThreadPoolExecutor(
          0,
          Integer.MAX_VALUE,
          30,
          TimeUnit.SECONDS,
          new SynchronousQueue<>(),
          task -> {
            Thread thread =
                new Thread(task, "locksmith-redis-connect-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          });
  private volatile boolean answered;

  /** Sends {@code command}: from a thread of its own until Redis has answered once. */
  <T> CompletableFuture<T> send(Supplier<? extends CompletionStage<T>> command) {
    if (answered) {
      return command.get().toCompletableFuture();
    }
    return CompletableFuture.supplyAsync(command, senders)
        .thenCompose(sent -> sent)
        .whenComplete(
            (reply, error) -> {
              if (error == null) {
                answered = true;
              }
            });
  }

  /**
   * Runs {@code contact}, blocking calls to Redis, and waits for it without reacting to interrupts:
   * from a thread of its own until Redis has answered once.
   *
   * @throws java.util.concurrent.CompletionException with what {@code contact} threw, when it ran
   *     on a thread of its own
   */
  void run(Runnable contact) {
    if (answered) {
      // Redisson's blocking calls throw at once on a thread whose interrupt flag is set.
      Uninterruptibly.call(
          () -> {
            contact.run();
            return Boolean.TRUE;
          });
      return;
    }
    CompletableFuture.runAsync(contact, senders).join();
    answered = true;
  }

  /** Lets the threads end; a command sent after this fails. */
  void close() {
    senders.shutdown();
  }
}
