package dev.locksmith.tcp;

import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockProviderFactory;
import dev.locksmith.core.spi.ProviderUrl;
import java.util.Set;

/**
 * Creates providers for {@code tcp://HOST[:PORT][?PARAMETERS]} that talk to a Locksmith lock
 * server. Parameters: {@code secret-file}, {@code secret}, {@code tls}, {@code tls-ca}, {@code
 * connect-timeout}, {@code request-timeout}, {@code ping-interval}; see the module README.
 */
public final class TcpLockProviderFactory implements LockProviderFactory {

  /** Creates the factory; {@link java.util.ServiceLoader} calls this. */
  public TcpLockProviderFactory() {}

  @Override
  public Set<String> schemes() {
    return Set.of("tcp");
  }

  /**
   * Checks the URL and never connects: a server that is down or unreachable fails the calls, with a
   * LockProviderException, not this.
   */
  @Override
  public LockProvider create(ProviderUrl url) {
    return new TcpLockProvider(TcpProviderSettings.from(url));
  }
}
