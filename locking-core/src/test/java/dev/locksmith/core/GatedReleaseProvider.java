package dev.locksmith.core;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import java.util.concurrent.CountDownLatch;

/** A real in-memory provider whose release waits for a gate, as a slow round trip does. */
final class GatedReleaseProvider extends ForwardingProvider {
  private final CountDownLatch releasing;
  private final CountDownLatch gate;
  volatile boolean released;

  GatedReleaseProvider(LockProvider delegate, CountDownLatch releasing, CountDownLatch gate) {
    super(delegate);
    this.releasing = releasing;
    this.gate = gate;
  }

  @Override
  public boolean release(LeaseGrant lease) {
    releasing.countDown();
    try {
      gate.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LockProviderException("interrupted");
    }
    boolean result = delegate.release(lease);
    released = true;
    return result;
  }

  @Override
  public String description() {
    return "gated " + delegate.description();
  }
}
