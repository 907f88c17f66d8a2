package dev.locksmith.chaos;

import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.LocksmithBuilder;
import dev.locksmith.core.spi.LockProvider;

/**
 * One client of the lock store in the test JVM: its own provider (its own connection, Redisson
 * client or directory handle) and its own engine. Closing closes both.
 */
final class Client implements AutoCloseable {
  private final LockProvider provider;
  private final Locksmith locksmith;

  private Client(LockProvider provider, Locksmith locksmith) {
    this.provider = provider;
    this.locksmith = locksmith;
  }

  static Client connect(String url, LockListener... listeners) {
    LockProvider provider = LockProviders.create(url);
    LocksmithBuilder builder = Locksmith.builder().defaultProvider(provider);
    for (LockListener listener : listeners) {
      builder.listener(listener);
    }
    return new Client(provider, builder.build());
  }

  Locksmith locksmith() {
    return locksmith;
  }

  LockProvider provider() {
    return provider;
  }

  /** How many wait for the lock on the provider, or -1 when it cannot tell. */
  int waiters(String lockId) {
    return provider.status(lockId).waiters();
  }

  @Override
  public void close() {
    locksmith.close();
    provider.close();
  }
}
