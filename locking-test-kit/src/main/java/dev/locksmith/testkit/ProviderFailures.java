package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.LockProviderException;
import java.time.Duration;
import java.util.concurrent.Callable;

/** Checks on how a provider call fails while its backend is down or unreachable. */
public final class ProviderFailures {
  private ProviderFailures() {}

  /**
   * Runs {@code call}, which must fail with a one-line {@link LockProviderException} within {@code
   * bound}.
   *
   * @param bound the longest the call may take
   * @param call the call
   * @return the exception, for checks of its message
   * @throws AssertionError when the call returns, throws something else, takes {@code bound} or
   *     longer, or fails with a message of more than one line
   */
  public static LockProviderException failsWithin(Duration bound, Callable<?> call) {
    long start = System.nanoTime();
    LockProviderException failure;
    try {
      Object result = call.call();
      throw new AssertionError("expected a LockProviderException, got " + result);
    } catch (LockProviderException e) {
      failure = e;
    } catch (Exception e) {
      throw new AssertionError("expected a LockProviderException", e);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to fail").isLessThan(bound);
    assertThat(failure.getMessage()).as("one line").doesNotContain("\n");
    return failure;
  }
}
