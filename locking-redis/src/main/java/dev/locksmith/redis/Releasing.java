package dev.locksmith.redis;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.OwnerTokens;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The provider's releases, each checked ({@link CallChecks}) first. A synchronous one runs as a
 * call in flight ({@link AcquiresInFlight#release}) once this provider's releases of its lock in
 * flight are answered; an asynchronous one is one of those, kept in {@link PendingReleases} until
 * answered (see {@link RedisLockProvider#releaseAsync}). Each carries a release id of its own, so
 * that a run Redisson resent reports what the first run did.
 */
final class Releasing {
  private final CallChecks checks;
  private final AcquiresInFlight acquires;
  private final LockCommands commands;
  private final PendingReleases pendingReleases;

  Releasing(
      CallChecks checks,
      AcquiresInFlight acquires,
      LockCommands commands,
      PendingReleases pendingReleases) {
    this.checks = checks;
    this.acquires = acquires;
    this.commands = commands;
    this.pendingReleases = pendingReleases;
  }

  /**
   * Runs the release script for {@code lease} with {@code releaseId} and waits for its answer:
   * whether the lease was released.
   */
  boolean release(LeaseGrant lease, String releaseId) {
    LockKeys keys = checks.keys(lease.lockId());
    return acquires.release(
        () -> {
          pendingReleases.awaitAnswered(List.of(lease.lockId()));
          return commands.release(lease, keys, releaseId);
        });
  }

  /**
   * Sends the release script for {@code lease} with a new release id, a release in flight until
   * answered; the stage completes from the first reply that answers it, or fails at once when the
   * call is refused before anything is sent.
   */
  CompletionStage<Boolean> releaseAsync(LeaseGrant lease) {
    LockKeys keys;
    try {
      keys = checks.keys(lease.lockId());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    String releaseId = OwnerTokens.newToken();
    PendingReleases.Pending pending = pendingReleases.register(lease, releaseId);
    pending.answerFrom(commands.releaseAsync(lease, keys, releaseId));
    return pending.outcome().copy();
  }
}
