package dev.locksmith.core.spi;

/**
 * Runs a provider call on a thread whose interrupt flag is set as on any other thread, and sets the
 * flag again afterwards: the one way providers keep the SPI's rule that only a wait ({@link
 * LockProvider#acquire(LockRequest, java.time.Duration)}) answers an interrupt.
 *
 * <p>A release in the {@code finally} of a cancelled task runs with the flag set, and blocking I/O
 * reacts to it: a {@code FileChannel} is closed ({@code ClosedByInterruptException}), a virtual
 * thread's socket is closed, a pool's wait for a connection and {@code Future.get} throw at once.
 * The release then failed, the lock stayed held until its TTL, and the failure counted as the store
 * being down. An interrupt that arrives during the call still reaches it.
 */
public final class Uninterruptibly {
  private Uninterruptibly() {}

  /**
   * A call that may throw {@code E}.
   *
   * @param <T> its result
   * @param <E> what it throws
   */
  @FunctionalInterface
  public interface Call<T, E extends Exception> {
    /**
     * Runs the call.
     *
     * @return its result
     * @throws E when it fails
     */
    T call() throws E;
  }

  /**
   * Runs {@code call} with the thread's interrupt flag cleared, and sets the flag again afterwards
   * when it was set.
   *
   * @param call the provider call
   * @param <T> its result
   * @param <E> what it throws
   * @return its result
   * @throws E when it fails
   */
  public static <T, E extends Exception> T call(Call<T, E> call) throws E {
    boolean interrupted = Thread.interrupted();
    try {
      return call.call();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
