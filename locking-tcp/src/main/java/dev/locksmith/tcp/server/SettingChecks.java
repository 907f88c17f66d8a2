package dev.locksmith.tcp.server;

import java.time.Duration;

/**
 * The checks of the values {@link LockServerBuilder} takes: each returns the value, or throws
 * {@link IllegalArgumentException} naming the setting.
 */
final class SettingChecks {
  private SettingChecks() {}

  /** {@code value} when it is above zero. */
  static Duration positive(String name, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
    return value;
  }

  /** {@code value} when it is zero or more. */
  static Duration notNegative(String name, Duration value) {
    if (value.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, was " + value);
    }
    return value;
  }

  /** {@code value} when it is at least 1. */
  static int positive(String name, int value) {
    return Math.toIntExact(positive(name, (long) value));
  }

  /** {@code value} when it is at least 1. */
  static long positive(String name, long value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
    return value;
  }

  /** {@code port} when it is a TCP port or {@code lowest} (0 or -1, with their meaning). */
  static int portIn(String name, int port, int lowest) {
    if (port < lowest || port > 65_535) {
      throw new IllegalArgumentException(name + " " + port + " is outside " + lowest + "..65535");
    }
    return port;
  }
}
