package dev.locksmith.chaos;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/** Runs a blocking call on a thread of its own, so the test can fault it or wait for it. */
final class Async {
  private Async() {}

  /** A started call; the returned thread may be interrupted to cancel the call. */
  record Call<T>(Thread thread, CompletableFuture<T> result) {}

  /** Starts {@code call} on a new daemon thread named {@code name}. */
  static <T> Call<T> start(String name, Callable<T> call) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                result.complete(call.call());
              } catch (Throwable e) {
                result.completeExceptionally(e);
              }
            },
            name);
    thread.setDaemon(true);
    thread.start();
    return new Call<>(thread, result);
  }
}
