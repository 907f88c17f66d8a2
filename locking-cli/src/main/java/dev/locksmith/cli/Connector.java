package dev.locksmith.cli;

import dev.locksmith.core.Durations;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.ProviderUrl;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Creates a provider from its URL and makes a first call on it, both within {@code
 * --connect-timeout}. Providers have their own, longer timeouts and retries (a TLS handshake with a
 * server that does not speak TLS, an unanswered connect, a server that accepts and never replies);
 * this bounds them all the same way. Creation and the first call run on a daemon thread; when they
 * run out of time the command fails with exit 69, and a provider that is created later is closed.
 */
final class Connector {
  private Connector() {}

  /**
   * A provider and the result of the first call on it.
   *
   * @param provider the provider, which the caller closes
   * @param first what {@code firstCall} returned
   * @param <T> the first call's result
   */
  record Connected<T>(LockProvider provider, T first) {}

  /**
   * Creates the provider for {@code url} and calls {@code firstCall} on it within {@code timeout}.
   *
   * @throws dev.locksmith.core.LockConfigurationException when the URL is wrong (exit 64)
   * @throws Failure when the provider cannot be created (exit 69)
   * @throws LockProviderException when the first call fails (exit 69)
   * @throws Failure when it takes longer than {@code timeout} (exit 69)
   */
  static <T> Connected<T> open(String url, Duration timeout, Function<LockProvider, T> firstCall) {
    ProviderUrl parsed = ProviderUrl.parse(url);
    CompletableFuture<Connected<T>> opened = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              LockProvider provider = null;
              try {
                provider = LockProviders.create(parsed);
                Connected<T> connected = new Connected<>(provider, firstCall.apply(provider));
                if (!opened.complete(connected)) {
                  provider.close(); // the caller gave up waiting
                }
              } catch (LockProviderException e) {
                if (provider != null) {
                  closeQuietly(provider);
                  opened.completeExceptionally(e);
                } else {
                  opened.completeExceptionally(
                      Failure.unavailable(
                          "provider unreachable: "
                              + Errors.clean(e)
                              + "; check --url and that the server is up",
                          e));
                }
              } catch (Throwable e) {
                if (provider != null) {
                  closeQuietly(provider);
                }
                opened.completeExceptionally(e);
              }
            },
            "locksmith-connect");
    thread.setDaemon(true);
    thread.start();
    if (!awaitDone(opened, timeout) && opened.cancel(false)) {
      throw Failure.unavailable(
          "cannot reach "
              + parsed.redacted()
              + " within --connect-timeout "
              + Durations.format(timeout)
              + "; check the host and port, that client and server agree on TLS (rediss://,"
              + " tls=true), or allow longer with --connect-timeout",
          null);
    }
    try {
      return opened.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }

  /** Whether {@code future} completed within {@code timeout}. */
  private static boolean awaitDone(CompletableFuture<?> future, Duration timeout) {
    try {
      future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      return true;
    } catch (ExecutionException e) {
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      future.cancel(false);
      throw Failure.unavailable("interrupted while connecting to the provider", e);
    }
  }

  private static void closeQuietly(LockProvider provider) {
    try {
      provider.close();
    } catch (RuntimeException e) {
      // It failed already; closing is best effort.
    }
  }
}
