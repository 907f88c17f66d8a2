package dev.locksmith.core;

import dev.locksmith.core.spi.LockProvider;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * The programmatic calls of {@link Locksmith}: a lease taken with {@code acquire}/{@code
 * tryAcquire} and a block run with {@code run}/{@code call}. Both reenter a lease this thread
 * already holds on the same lock id and provider, and join the thread's held leases, so that nested
 * calls reenter them and {@link Locks#current()} sees them; closing removes them (leases closed on
 * another thread are purged).
 */
final class ProgrammaticCalls {
  private final ConfiguredProviders providers;
  private final LeaseAcquirer acquirer;

  ProgrammaticCalls(ConfiguredProviders providers, LeaseAcquirer acquirer) {
    this.providers = providers;
    this.acquirer = acquirer;
  }

  /** Takes a lease under the options' busy policy; {@code null} means skipped. */
  @Nullable Lease acquire(LockOptions options) {
    LockProvider provider = provider(options);
    ActiveLease reentered = HeldLeases.find(provider, options);
    if (reentered != null) {
      return new ReenteredLease(reentered);
    }
    HeldLease lease =
        acquirer.obtainHeld(
            options, ConfiguredProviders.display(options.provider()), provider, false);
    if (lease != null) {
      HeldLeases.push(lease);
    }
    return lease;
  }

  /** Calls a block under a lease, released when it returns; {@code null} means skipped. */
  <T> @Nullable T call(LockOptions options, Callable<T> block) throws Exception {
    LockProvider provider = provider(options);
    ActiveLease reentered = HeldLeases.find(provider, options);
    if (reentered != null) {
      return runHeld(reentered, block);
    }
    HeldLease lease =
        acquirer.obtainHeld(
            options, ConfiguredProviders.display(options.provider()), provider, true);
    if (lease == null) {
      return null;
    }
    try (lease) {
      return runHeld(lease, block);
    }
  }

  private static <T> T runHeld(HeldLease lease, Callable<T> block) throws Exception {
    HeldLeases.push(lease);
    try {
      return block.call();
    } finally {
      HeldLeases.pop(lease);
    }
  }

  private LockProvider provider(LockOptions options) {
    LockProvider provider = providers.get(options.provider());
    if (provider == null) {
      providers.resolve(options.provider(), "Lock '" + options.lockId() + "'");
    }
    return Objects.requireNonNull(provider);
  }
}
