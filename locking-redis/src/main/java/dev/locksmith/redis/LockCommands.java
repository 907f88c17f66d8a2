package dev.locksmith.redis;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

/**
 * The provider's commands: each runs one of the {@link LuaScripts} and waits for its reply without
 * being interruptible, so an interrupt never leaves a command's outcome unknown; Redisson's timeout
 * and retry settings bound the wait (and, before the client's first connection, its connect timeout
 * and retries; see {@link FirstContact}). A failure becomes a {@link LockProviderException} with
 * one line naming the action, the lock, the node and what happened ({@link CommandSender}),
 * Redisson's exception as its cause. Grants and renewals wait for the replicas the options ask for
 * ({@link ReplicaAcks}); an acquire whose reply was lost is compensated ({@link Compensations}).
 */
final class LockCommands {
  private final Scripts scripts;
  private final CommandSender sender;
  private final ReplicaAcks replicaAcks;
  private final Compensations compensations;

  LockCommands(
      RedissonClient client,
      FirstContact firstContact,
      String description,
      RedisLockOptions options) {
    this.scripts = new Scripts(client);
    this.sender = new CommandSender(firstContact, description);
    this.replicaAcks = new ReplicaAcks(scripts, options, description);
    this.compensations = new Compensations(scripts, firstContact, description);
  }

  /**
   * One acquire script run: granted with a fencing token, or refused with the holder's pttl.
   *
   * @param granted whether the lock was granted
   * @param value the fencing token when granted, else the holder's pttl in milliseconds
   * @param folded the outcome of the release folded into the attempt, {@code null} when none was
   */
  record Attempt(boolean granted, long value, @Nullable Boolean folded) {
    Attempt(boolean granted, long value) {
      this(granted, value, null);
    }

    /** The grant of an attempt sent at {@code sentAt}: its local deadline counts from then. */
    LeaseGrant grant(LockRequest request, long sentAt) {
      return request.granted(value, sentAt);
    }
  }

  /**
   * Runs the acquire script once. When it fails, the script may have run and only its reply be
   * lost: then the lock is held by a token that nobody will renew or release, so it is released by
   * that token, without waiting, before the failure is thrown.
   */
  Attempt acquire(LockRequest request, LockKeys keys) {
    return acquire(request, keys, null);
  }

  /**
   * {@link #acquire(LockRequest, LockKeys)} with {@code fold}, a release of the same lock still in
   * flight, folded in (see {@link LuaScripts#ACQUIRE}): the attempt's {@link Attempt#folded()} is
   * that release's outcome.
   */
  Attempt acquire(LockRequest request, LockKeys keys, PendingReleases.@Nullable Pending fold) {
    try {
      return acquireOnce(request, keys, fold);
    } catch (LockProviderException e) {
      CompletionStage<Boolean> released = compensations.release(request, keys);
      if (e instanceof ReplicaAcks.ReplicasMissing missing) {
        // Granted but not acknowledged: released before the refusal is thrown, where Redis answers.
        throw missing.afterRelease(released.toCompletableFuture().join());
      }
      throw e;
    }
  }

  private Attempt acquireOnce(
      LockRequest request, LockKeys keys, PendingReleases.@Nullable Pending fold) {
    List<Object> arguments = new ArrayList<>(ScriptArguments.acquire(request));
    if (fold != null) {
      arguments.addAll(ScriptArguments.fold(fold));
    }
    String subject = MessageSubjects.lock(request.lockId());
    Scripts.Acked<List<Object>> acked =
        callAcquire(subject, keys.lock(), LuaScripts.ACQUIRE, keys.forAcquire(), arguments);
    List<Object> reply = acked.reply();
    int expected = fold == null ? 2 : 3;
    if (reply == null || reply.size() != expected) {
      throw sender.unexpectedReply("acquire " + subject, reply);
    }
    Attempt attempt =
        new Attempt(
            asLong(reply.get(0)) == 1L,
            asLong(reply.get(1)),
            fold == null ? null : asLong(reply.get(2)) == 1L);
    if (attempt.granted()) {
      replicaAcks.checkAcknowledged("grant", subject, acked);
    }
    return attempt;
  }

  /**
   * Runs the all-or-none acquire script once for {@code requests}, whose keys ({@code keys}, in the
   * same order) all lie in one cluster slot: the fencing tokens in request order, or empty when a
   * lock was held by another owner and nothing was taken. When it fails, the script may have run
   * and only its reply be lost: then each lock is released by its request's owner token, without
   * waiting, before the failure is thrown (as for {@link #acquire}).
   */
  Optional<List<Long>> acquireAll(List<LockRequest> requests, List<LockKeys> keys) {
    try {
      return acquireAllOnce(requests, keys);
    } catch (LockProviderException e) {
      List<CompletableFuture<Boolean>> released = new ArrayList<>(requests.size());
      for (int i = 0; i < requests.size(); i++) {
        released.add(compensations.release(requests.get(i), keys.get(i)).toCompletableFuture());
      }
      if (e instanceof ReplicaAcks.ReplicasMissing missing) {
        boolean all = true;
        for (CompletableFuture<Boolean> one : released) {
          all &= one.join();
        }
        throw missing.afterRelease(all);
      }
      throw e;
    }
  }

  private Optional<List<Long>> acquireAllOnce(List<LockRequest> requests, List<LockKeys> keys) {
    List<Object> scriptKeys = ScriptArguments.keysOfEach(keys, LockKeys::forAcquire);
    List<Object> arguments = new ArrayList<>(4 * requests.size());
    for (LockRequest request : requests) {
      arguments.addAll(ScriptArguments.acquire(request));
    }
    String subject = MessageSubjects.locksNamed(requests);
    Scripts.Acked<List<Object>> acked =
        callAcquire(subject, keys.get(0).lock(), LuaScripts.ACQUIRE_ALL, scriptKeys, arguments);
    List<Object> reply = acked.reply();
    if (reply != null && reply.size() == 3 && asLong(reply.get(0)) == 0L) {
      return Optional.empty();
    }
    if (reply == null || reply.size() != requests.size() + 1 || asLong(reply.get(0)) != 1L) {
      throw sender.unexpectedReply("acquire " + subject + " together", reply);
    }
    List<Long> fences = new ArrayList<>(requests.size());
    for (int i = 1; i < reply.size(); i++) {
      fences.add(asLong(reply.get(i)));
    }
    replicaAcks.checkAcknowledged("grant", subject, acked);
    return Optional.of(List.copyOf(fences));
  }

  /** Runs an acquire script ({@code lua}) on {@code key}'s node and waits for its reply. */
  private Scripts.Acked<List<Object>> callAcquire(
      String subject, String key, String lua, List<Object> scriptKeys, List<Object> arguments) {
    return sender.call(
        "acquire",
        subject,
        () ->
            replicaAcks.granting(
                key, lua, RScript.ReturnType.LIST, scriptKeys, arguments.toArray()));
  }

  /** Runs the renew script: whether {@code lease} was still held and now lasts {@code ttl}. */
  boolean renew(LeaseGrant lease, LockKeys keys, Duration ttl) {
    String subject = MessageSubjects.lock(lease.lockId());
    Scripts.Acked<Long> acked =
        sender.call(
            "renew",
            subject,
            () ->
                replicaAcks.granting(
                    keys.lock(),
                    LuaScripts.RENEW,
                    RScript.ReturnType.LONG,
                    keys.forRenew(),
                    ScriptArguments.renew(lease, ttl).toArray()));
    boolean renewed = acked.reply() != null && acked.reply() == 1L;
    if (renewed) {
      replicaAcks.checkAcknowledged("renewal", subject, acked);
    }
    return renewed;
  }

  /**
   * Runs the release script with {@code releaseId}; a run that finds the release of the same id
   * recorded reports it again without publishing.
   */
  boolean release(LeaseGrant lease, LockKeys keys, String releaseId) {
    Long released =
        sender.call(
            "release",
            MessageSubjects.lock(lease.lockId()),
            () -> runRelease(lease, keys, releaseId));
    return released != null && released == 1L;
  }

  /**
   * Sends the release script with {@code releaseId} without waiting: the stage completes with what
   * {@link #release} would return, or with the {@link LockProviderException} it would throw.
   */
  CompletableFuture<Boolean> releaseAsync(LeaseGrant lease, LockKeys keys, String releaseId) {
    return sender
        .send(
            "release",
            MessageSubjects.lock(lease.lockId()),
            () -> runRelease(lease, keys, releaseId))
        .thenApply(released -> released != null && released == 1L);
  }

  private CompletableFuture<Long> runRelease(LeaseGrant lease, LockKeys keys, String releaseId) {
    return scripts.run(
        keys.lock(),
        LuaScripts.RELEASE,
        RScript.ReturnType.LONG,
        keys.forRelease(),
        ScriptArguments.release(lease, releaseId).toArray());
  }

  /**
   * Sends one renew script for {@code leases} (their keys in {@code keys}, the same order), all in
   * one cluster slot, without waiting: the stage completes with whether each lease was still held
   * and now lasts its ttl, in order, or with a {@link LockProviderException}.
   */
  CompletableFuture<List<Boolean>> renewAll(
      List<LeaseGrant> leases, List<LockKeys> keys, List<Duration> ttls) {
    List<Object> scriptKeys = ScriptArguments.keysOfEach(keys, LockKeys::forRenew);
    List<Object> arguments = new ArrayList<>(4 * leases.size());
    for (int i = 0; i < leases.size(); i++) {
      arguments.addAll(ScriptArguments.renew(leases.get(i), ttls.get(i)));
    }
    String subject = MessageSubjects.leasesNamed(leases);
    return sender
        .<Scripts.Acked<List<Object>>>send(
            "renew",
            subject,
            () ->
                replicaAcks.granting(
                    keys.get(0).lock(),
                    LuaScripts.RENEW_ALL,
                    RScript.ReturnType.LIST,
                    scriptKeys,
                    arguments.toArray()))
        .thenApply(
            acked -> {
              List<Object> reply = acked.reply();
              if (reply == null || reply.size() != leases.size()) {
                throw sender.unexpectedReply("renew " + subject + " together", reply);
              }
              List<Boolean> renewed = new ArrayList<>(reply.size());
              for (Object answer : reply) {
                renewed.add(asLong(answer) == 1L);
              }
              if (renewed.contains(true)) {
                replicaAcks.checkAcknowledged("renewal", subject, acked);
              }
              return renewed;
            });
  }

  /** Runs the status script. */
  LockStatus status(String lockId, LockKeys keys) {
    List<Object> reply =
        sender.call(
            "read the status of",
            MessageSubjects.lock(lockId),
            () ->
                scripts.run(
                    keys.lock(), LuaScripts.STATUS, RScript.ReturnType.LIST, List.of(keys.lock())));
    if (reply == null || reply.size() < 3) {
      return new LockStatus(lockId, null, -1);
    }
    long pttl = asLong(reply.get(2));
    return new LockStatus(
        lockId,
        new LockStatus.Holder(
            String.valueOf(reply.get(1)),
            asLong(reply.get(0)),
            Duration.ofMillis(Math.max(0, pttl))),
        -1);
  }

  /** The compensating releases of acquires whose reply was lost. */
  Compensations compensations() {
    return compensations;
  }

  private static long asLong(Object value) {
    if (value instanceof Number number) {
      return number.longValue();
    }
    return Long.parseLong(String.valueOf(value));
  }
}
