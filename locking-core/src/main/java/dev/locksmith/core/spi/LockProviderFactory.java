package dev.locksmith.core.spi;

import java.util.Set;

/**
 * Creates providers for URL schemes. Implementations are found with {@link java.util.ServiceLoader}
 * under {@code META-INF/services/dev.locksmith.core.spi.LockProviderFactory}.
 */
public interface LockProviderFactory {

  /**
   * The URL schemes this factory handles, such as {@code "redis"} and {@code "rediss"}.
   *
   * @return the URL schemes this factory handles, such as {@code "redis"} and {@code "rediss"}
   */
  Set<String> schemes();

  /**
   * Creates a provider, checking configuration only: a URL whose parts are wrong fails with a
   * {@link dev.locksmith.core.LockConfigurationException} that names the part. Creation never needs
   * the backend: a provider created while its server or directory is unreachable is returned, its
   * calls fail with {@link dev.locksmith.core.LockProviderException} until the backend answers, and
   * then work without the provider being created again.
   *
   * @param url the parsed URL
   * @return the provider
   */
  LockProvider create(ProviderUrl url);
}
