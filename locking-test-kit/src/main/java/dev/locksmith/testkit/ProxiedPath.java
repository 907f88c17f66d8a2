package dev.locksmith.testkit;

import dev.locksmith.core.spi.LockProvider;

/** A network client behind a {@link FaultProxy}. */
final class ProxiedPath implements FaultyPath {
  private final FaultProxy proxy;
  private final LockProvider client;

  ProxiedPath(FaultProxy proxy, LockProvider client) {
    this.proxy = proxy;
    this.client = client;
  }

  @Override
  public LockProvider provider() {
    return client;
  }

  @Override
  public void freezeReplies() {
    proxy.freeze(FaultProxy.Direction.TO_CLIENT);
  }

  @Override
  public void thaw() {
    proxy.thaw();
  }

  @Override
  public void loseNextReply() {
    proxy.loseNextReply();
  }

  @Override
  public void close() {
    proxy.thaw();
    try {
      client.close();
    } finally {
      proxy.close();
    }
  }

  @Override
  public String toString() {
    return client.description() + " through " + proxy;
  }
}
