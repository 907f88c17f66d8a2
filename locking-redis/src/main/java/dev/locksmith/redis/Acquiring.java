package dev.locksmith.redis;

import dev.locksmith.core.spi.Deadlines;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockRequests;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The provider's acquires, each checked ({@link CallChecks}) and then run as an acquire in flight
 * ({@link AcquiresInFlight}): a call's first attempt, after the {@code maxmemory-policy} check
 * ({@link EvictionGate}) and with this provider's release of the same lock still in flight folded
 * in (see {@link RedisLockProvider#releaseAsync}); the wait after a refused first attempt ({@link
 * Waiting}); and sets, in one script ({@link SeveralLocks}) or one by one.
 */
final class Acquiring {
  private final CallChecks checks;
  private final AcquiresInFlight acquires;
  private final EvictionGate evictionGate;
  private final LockCommands commands;
  private final PendingReleases pendingReleases;
  private final Waiting waiting;
  private final SeveralLocks severalLocks;
  private final LateCopies lateCopies;

  Acquiring(
      CallChecks checks,
      AcquiresInFlight acquires,
      EvictionGate evictionGate,
      LockCommands commands,
      PendingReleases pendingReleases,
      Waiting waiting,
      SeveralLocks severalLocks,
      LateCopies lateCopies) {
    this.checks = checks;
    this.acquires = acquires;
    this.evictionGate = evictionGate;
    this.commands = commands;
    this.pendingReleases = pendingReleases;
    this.waiting = waiting;
    this.severalLocks = severalLocks;
    this.lateCopies = lateCopies;
  }

  /** One attempt at {@code request}: the grant, or empty when the lock is held. */
  Optional<LeaseGrant> tryAcquire(LockRequest request) {
    LockKeys keys = checks.keys(request);
    return acquires.run(
        List.of(request),
        () ->
            lateCopies.guard(
                List.of(request), List.of(keys), attempts -> firstGrant(request, keys, attempts)));
  }

  /**
   * The first attempt at {@code request}, then, when refused, the wait until granted or {@code
   * timeout} has passed.
   */
  Optional<LeaseGrant> acquire(LockRequest request, Duration timeout) throws InterruptedException {
    LockKeys keys = checks.keys(request);
    long deadline = Deadlines.nanosAfter(timeout);
    return acquires.run(
        List.of(request),
        () ->
            lateCopies.guard(
                List.of(request),
                List.of(keys),
                attempts -> {
                  Optional<LeaseGrant> grant = firstGrant(request, keys, attempts);
                  return grant.isPresent()
                      ? grant
                      : waiting.waitFor(request, keys, deadline, attempts);
                }));
  }

  /**
   * Takes {@code requests} all or none, once this provider's releases of them in flight are
   * answered: a single one as {@link #tryAcquire}, several with one script where one may touch all
   * their keys ({@link SeveralLocks#inOneScript}), else with {@code oneByOne}.
   */
  Optional<List<LeaseGrant>> tryAcquireAll(
      List<LockRequest> requests, Supplier<Optional<List<LeaseGrant>>> oneByOne) {
    LockRequests.checkBatch(requests);
    List<LockKeys> keys = new ArrayList<>(requests.size());
    for (LockRequest request : requests) {
      keys.add(checks.keys(request));
    }
    if (requests.size() == 1) {
      return tryAcquire(requests.get(0)).map(List::of);
    }
    return acquires.run(
        requests,
        () -> {
          pendingReleases.awaitAnswered(requests.stream().map(LockRequest::lockId).toList());
          if (!severalLocks.inOneScript(keys, requests.get(0).lockId())) {
            return oneByOne.get();
          }
          return lateCopies.guard(
              requests,
              keys,
              attempts ->
                  attempts.send(
                      () -> severalLocks.acquireAll(requests, keys), Optional::isPresent));
        });
  }

  /** The grant of the first attempt of a call, if any; the eviction policy is checked first. */
  private Optional<LeaseGrant> firstGrant(
      LockRequest request, LockKeys keys, LateCopies.Attempts attempts) {
    evictionGate.ensureChecked(request.lockId());
    long sentAt = System.nanoTime();
    LockCommands.Attempt attempt =
        attempts.send(() -> firstAttempt(request, keys), LockCommands.Attempt::granted);
    return attempt.granted() ? Optional.of(attempt.grant(request, sentAt)) : Optional.empty();
  }

  /**
   * The first acquire attempt of a call, with this provider's release of the same lock still in
   * flight, if any, folded in (see {@link RedisLockProvider#releaseAsync}); the attempt's reply
   * answers that release.
   */
  private LockCommands.Attempt firstAttempt(LockRequest request, LockKeys keys) {
    PendingReleases.Pending fold = pendingReleases.toFold(request.lockId());
    LockCommands.Attempt attempt = commands.acquire(request, keys, fold);
    if (fold != null && attempt.folded() != null) {
      fold.answer(attempt.folded());
    }
    return attempt;
  }
}
