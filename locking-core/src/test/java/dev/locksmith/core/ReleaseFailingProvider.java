package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;

/** A real in-memory provider whose release fails, as a provider does when its server is gone. */
final class ReleaseFailingProvider extends ForwardingProvider {
  ReleaseFailingProvider(LockProvider delegate) {
    super(delegate);
  }

  @Override
  public boolean release(LeaseGrant lease) {
    throw new LockProviderException("release failed");
  }

  @Override
  public String description() {
    return "failing " + delegate.description();
  }
}
