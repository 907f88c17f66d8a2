package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.LockConfigurationException;

/** The configuration error a failed start reports, under whatever Micronaut wrapped it in. */
final class ConfigurationFailures {
  private ConfigurationFailures() {}

  /** The first {@link LockConfigurationException} among {@code failure} and its causes. */
  static LockConfigurationException cause(Throwable failure) {
    Throwable cause = failure;
    while (!(cause instanceof LockConfigurationException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    assertThat(cause)
        .as("root cause of %s", failure)
        .isInstanceOf(LockConfigurationException.class);
    return (LockConfigurationException) cause;
  }
}
