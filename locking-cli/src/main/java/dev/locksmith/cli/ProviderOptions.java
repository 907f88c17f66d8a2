package dev.locksmith.cli;

import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.function.Function;
import picocli.CommandLine.Option;

/**
 * {@code --url} and {@code --connect-timeout}: how {@code run} and {@code status} reach a provider.
 */
final class ProviderOptions {
  @Option(
      names = "--url",
      required = true,
      description =
          "Provider URL: file:///dir, tcp://host:7420, redis://host:6379,"
              + " jdbc:postgresql://host/db?user=..., zk://host:2181, mem:")
  String url;

  @Option(
      names = "--connect-timeout",
      defaultValue = "5s",
      description =
          "How long reaching the provider (and, for status, reading what it holds) may take"
              + " before the command exits 69 (default: ${DEFAULT-VALUE}).")
  Duration connectTimeout;

  /** Fails with a usage error when {@code --connect-timeout} is zero. */
  void check() {
    if (connectTimeout.isZero()) {
      throw Failure.usage("--connect-timeout must be positive, was 0s");
    }
  }

  /**
   * Creates the provider and makes its first call within {@code --connect-timeout}.
   *
   * @see Connector#open
   */
  <T> Connector.Connected<T> open(Function<LockProvider, T> firstCall) {
    check();
    return Connector.open(url, connectTimeout, firstCall);
  }
}
