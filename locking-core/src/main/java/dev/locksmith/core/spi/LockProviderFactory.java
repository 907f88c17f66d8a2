package dev.locksmith.core.spi;

import java.util.Set;

/**
 * Creates providers for URL schemes. Implementations are found with {@link java.util.ServiceLoader}
 * under {@code META-INF/services/dev.locksmith.core.spi.LockProviderFactory}.
 */
public interface LockProviderFactory {

  /** The URL schemes this factory handles, such as {@code "redis"} and {@code "rediss"}. */
  Set<String> schemes();

  /**
   * Creates a provider. A URL whose parts are wrong fails with a {@link
   * dev.locksmith.core.LockConfigurationException} that names the part; an unreachable resource
   * fails with a {@link dev.locksmith.core.LockProviderException}.
   */
  LockProvider create(ProviderUrl url);
}
