package dev.locksmith.core;

/**
 * The engine's time source: nanoseconds on the same clock as {@link System#nanoTime()}, against
 * which providers report their local deadlines ({@link dev.locksmith.core.spi.LeaseGrant}). The
 * engine reads it for every lease-timing rule: when a lease was acquired, when it is due for
 * renewal, when its deadline passed. Tests pass their own to run the engine on virtual time.
 */
@FunctionalInterface
public interface Ticker {

  /**
   * The current time in nanoseconds; only differences between readings have a meaning.
   *
   * @return the current time in nanoseconds; only differences between readings have a meaning
   */
  long read();

  /**
   * The system's monotonic clock, {@link System#nanoTime()}.
   *
   * @return the system's monotonic clock, {@link System#nanoTime()}
   */
  static Ticker system() {
    return System::nanoTime;
  }
}
