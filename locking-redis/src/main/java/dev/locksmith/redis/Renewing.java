package dev.locksmith.redis;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequests;
import dev.locksmith.core.spi.RenewalRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The provider's renewals, of one lease or a batch ({@link SeveralLocks#renewAll}), each checked
 * ({@link CallChecks}) and sent once this provider's releases of the same locks in flight are
 * answered. A renewed lease's local deadline counts from when its script was sent.
 */
final class Renewing {
  private final CallChecks checks;
  private final LockCommands commands;
  private final PendingReleases pendingReleases;
  private final SeveralLocks severalLocks;

  Renewing(
      CallChecks checks,
      LockCommands commands,
      PendingReleases pendingReleases,
      SeveralLocks severalLocks) {
    this.checks = checks;
    this.commands = commands;
    this.pendingReleases = pendingReleases;
    this.severalLocks = severalLocks;
  }

  /** Renews {@code lease} to last {@code ttl}: the renewed lease, or empty when no longer held. */
  Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    LockKeys keys = checks.keys(lease.lockId(), ttl);
    pendingReleases.awaitAnswered(List.of(lease.lockId()));
    long sentAt = System.nanoTime();
    if (!commands.renew(lease, keys, ttl)) {
      return Optional.empty();
    }
    return Optional.of(lease.renewed(ttl, sentAt + ttl.toNanos()));
  }

  /** Renews each of {@code requests}: in order, the renewed lease, or empty where not held. */
  List<Optional<LeaseGrant>> renewAll(List<RenewalRequest> requests) {
    LockRequests.checkRenewals(requests);
    if (requests.isEmpty()) {
      return List.of();
    }
    List<LockKeys> keys = new ArrayList<>(requests.size());
    List<String> ids = new ArrayList<>(requests.size());
    for (RenewalRequest request : requests) {
      keys.add(checks.keys(request.lease().lockId(), request.ttl()));
      ids.add(request.lease().lockId());
    }
    pendingReleases.awaitAnswered(ids);
    return severalLocks.renewAll(requests, keys);
  }
}
