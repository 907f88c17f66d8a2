package dev.locksmith.tcp;

import dev.locksmith.core.spi.SchemeProviderFactory;

/**
 * Creates providers for {@code tcp://HOST[:PORT][?PARAMETERS]} that talk to a Locksmith lock
 * server. Parameters: {@code secret-file}, {@code secret}, {@code tls}, {@code tls-ca}, {@code
 * connect-timeout}, {@code request-timeout}, {@code ping-interval}; see the module README.
 */
public final class TcpLockProviderFactory extends SchemeProviderFactory {

  /**
   * Creates the factory; {@link java.util.ServiceLoader} calls this. Its providers check the URL
   * and never connect on creation: a server that is down or unreachable fails the calls, with a
   * LockProviderException.
   */
  public TcpLockProviderFactory() {
    super(url -> new TcpLockProvider(TcpProviderSettings.from(url)), "tcp");
  }
}
