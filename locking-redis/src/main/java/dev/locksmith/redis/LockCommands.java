package dev.locksmith.redis;

import dev.locksmith.core.Durations;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider's commands: each runs one of the {@link LuaScripts} and waits for its reply without
 * being interruptible, so an interrupt never leaves a command's outcome unknown; Redisson's timeout
 * and retry settings bound the wait (and, before the client's first connection, its connect timeout
 * and retries; see {@link FirstContact}). A failure becomes a {@link LockProviderException} with
 * one line naming the action, the lock, the node and what happened ({@link RedisFailures}),
 * Redisson's exception as its cause.
 */
final class LockCommands {
  // Logged under the provider's name, as operators configure it.
  private static final Logger LOG = LoggerFactory.getLogger(RedisLockProvider.class);

  /** How many lock ids a message about several locks names before it counts the rest. */
  static final int NAMED_IN_MESSAGES = 5;

  private final Scripts scripts;
  private final FirstContact firstContact;
  private final int replicas;
  private final Duration replicaTimeout;
  private final Set<CompletableFuture<Boolean>> compensations = ConcurrentHashMap.newKeySet();
  private final String description;

  LockCommands(
      RedissonClient client,
      FirstContact firstContact,
      String description,
      RedisLockOptions options) {
    this.scripts = new Scripts(client);
    this.replicas = options.replicas();
    this.replicaTimeout = options.replicaTimeout();
    this.firstContact = firstContact;
    this.description = description;
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
      CompletionStage<Boolean> released = releaseAbandoned(request, keys);
      if (e instanceof ReplicasMissing) {
        // Granted but not acknowledged: nothing stays held once the refusal is thrown.
        released.toCompletableFuture().join();
      }
      throw e;
    }
  }

  private Attempt acquireOnce(
      LockRequest request, LockKeys keys, PendingReleases.@Nullable Pending fold) {
    List<Object> arguments = new ArrayList<>(acquireArguments(request));
    if (fold != null) {
      arguments.addAll(
          List.of(
              fold.lease().ownerToken(),
              Long.toString(fold.lease().fencingToken()),
              fold.releaseId(),
              Integer.toString(LuaScripts.RELEASE_RECORDS)));
    }
    Scripts.Acked<List<Object>> acked =
        call(
            "acquire",
            request.lockId(),
            () ->
                granting(
                    keys.lock(),
                    LuaScripts.ACQUIRE,
                    RScript.ReturnType.LIST,
                    List.of(keys.lock(), keys.fence()),
                    arguments.toArray()));
    List<Object> reply = acked.reply();
    int expected = fold == null ? 2 : 3;
    if (reply == null || reply.size() != expected) {
      throw new LockProviderException(
          "Redis "
              + description
              + " gave an unexpected reply to acquire lock '"
              + request.lockId()
              + "': "
              + reply);
    }
    Attempt attempt =
        new Attempt(
            asLong(reply.get(0)) == 1L,
            asLong(reply.get(1)),
            fold == null ? null : asLong(reply.get(2)) == 1L);
    if (attempt.granted()) {
      checkAcknowledged("grant", "lock '" + request.lockId() + "'", acked);
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
        released.add(releaseAbandoned(requests.get(i), keys.get(i)).toCompletableFuture());
      }
      if (e instanceof ReplicasMissing) {
        released.forEach(CompletableFuture::join);
      }
      throw e;
    }
  }

  private Optional<List<Long>> acquireAllOnce(List<LockRequest> requests, List<LockKeys> keys) {
    List<Object> scriptKeys = keyPairs(keys, LockKeys::fence);
    List<Object> arguments = new ArrayList<>(4 * requests.size());
    for (LockRequest request : requests) {
      arguments.addAll(acquireArguments(request));
    }
    String subject = locksNamed(requests);
    Scripts.Acked<List<Object>> acked =
        callOn(
            "acquire",
            subject,
            () ->
                granting(
                    keys.get(0).lock(),
                    LuaScripts.ACQUIRE_ALL,
                    RScript.ReturnType.LIST,
                    scriptKeys,
                    arguments.toArray()));
    List<Object> reply = acked.reply();
    if (reply != null && reply.size() == 3 && asLong(reply.get(0)) == 0L) {
      return Optional.empty();
    }
    if (reply == null || reply.size() != requests.size() + 1 || asLong(reply.get(0)) != 1L) {
      throw new LockProviderException(
          "Redis "
              + description
              + " gave an unexpected reply to acquire "
              + subject
              + " together: "
              + reply);
    }
    List<Long> fences = new ArrayList<>(requests.size());
    for (int i = 1; i < reply.size(); i++) {
      fences.add(asLong(reply.get(i)));
    }
    checkAcknowledged("grant", subject, acked);
    return Optional.of(List.copyOf(fences));
  }

  /** Runs the renew script: whether {@code lease} was still held and now lasts {@code ttl}. */
  boolean renew(LeaseGrant lease, LockKeys keys, Duration ttl) {
    Scripts.Acked<Long> acked =
        call(
            "renew",
            lease.lockId(),
            () ->
                granting(
                    keys.lock(),
                    LuaScripts.RENEW,
                    RScript.ReturnType.LONG,
                    List.of(keys.lock(), keys.channel()),
                    renewArguments(lease, ttl).toArray()));
    boolean renewed = acked.reply() != null && acked.reply() == 1L;
    if (renewed) {
      checkAcknowledged("renewal", "lock '" + lease.lockId() + "'", acked);
    }
    return renewed;
  }

  /**
   * Runs the release script with {@code releaseId}; a run that finds the release of the same id
   * recorded reports it again without publishing.
   */
  boolean release(LeaseGrant lease, LockKeys keys, String releaseId) {
    Long released = call("release", lease.lockId(), () -> runRelease(lease, keys, releaseId));
    return released != null && released == 1L;
  }

  /**
   * Sends the release script with {@code releaseId} without waiting: the stage completes with what
   * {@link #release} would return, or with the {@link LockProviderException} it would throw.
   */
  CompletableFuture<Boolean> releaseAsync(LeaseGrant lease, LockKeys keys, String releaseId) {
    return send(
            "release", "lock '" + lease.lockId() + "'", () -> runRelease(lease, keys, releaseId))
        .thenApply(released -> released != null && released == 1L);
  }

  private CompletableFuture<Long> runRelease(LeaseGrant lease, LockKeys keys, String releaseId) {
    return scripts.run(
        keys.lock(),
        LuaScripts.RELEASE,
        RScript.ReturnType.LONG,
        List.of(keys.lock(), keys.channel()),
        lease.ownerToken(),
        Long.toString(lease.fencingToken()),
        releaseId,
        Long.toString(LuaScripts.TOMBSTONE_MILLIS),
        Integer.toString(LuaScripts.RELEASE_RECORDS));
  }

  /**
   * Sends one renew script for {@code leases} (their keys in {@code keys}, the same order), all in
   * one cluster slot, without waiting: the stage completes with whether each lease was still held
   * and now lasts its ttl, in order, or with a {@link LockProviderException}.
   */
  CompletableFuture<List<Boolean>> renewAll(
      List<LeaseGrant> leases, List<LockKeys> keys, List<Duration> ttls) {
    List<Object> scriptKeys = keyPairs(keys, LockKeys::channel);
    List<Object> arguments = new ArrayList<>(3 * leases.size());
    for (int i = 0; i < leases.size(); i++) {
      arguments.addAll(renewArguments(leases.get(i), ttls.get(i)));
    }
    String subject = leasesNamed(leases);
    return this.<Scripts.Acked<List<Object>>>send(
            "renew",
            subject,
            () ->
                granting(
                    keys.get(0).lock(),
                    LuaScripts.RENEW_ALL,
                    RScript.ReturnType.LIST,
                    scriptKeys,
                    arguments.toArray()))
        .thenApply(
            acked -> {
              List<Object> reply = acked.reply();
              if (reply == null || reply.size() != leases.size()) {
                throw new LockProviderException(
                    "Redis "
                        + description
                        + " gave an unexpected reply to renew "
                        + subject
                        + " together: "
                        + reply);
              }
              List<Boolean> renewed = new ArrayList<>(reply.size());
              for (Object answer : reply) {
                renewed.add(asLong(answer) == 1L);
              }
              if (renewed.contains(true)) {
                checkAcknowledged("renewal", subject, acked);
              }
              return renewed;
            });
  }

  /** Runs the status script. */
  LockStatus status(String lockId, LockKeys keys) {
    List<Object> reply =
        call(
            "read the status of",
            lockId,
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

  /**
   * Best effort: deletes the lock if {@code request}'s owner token holds it, after an acquire whose
   * outcome is unknown. Never throws; the stage completes with whether a lock was deleted.
   */
  CompletionStage<Boolean> releaseAbandoned(LockRequest request, LockKeys keys) {
    CompletableFuture<Boolean> sent = sendReleaseAbandoned(request, keys);
    if (!sent.isDone()) {
      compensations.add(sent);
      sent.whenComplete((released, error) -> compensations.remove(sent));
    }
    return sent;
  }

  /**
   * Waits until every compensating release sent so far ({@link #releaseAbandoned}) is answered or
   * failed, at most until {@code deadline} ({@link System#nanoTime()}); each is bounded by
   * Redisson's timeout and retries. Returns how many were still unanswered then.
   */
  int awaitCompensations(long deadline) throws InterruptedException {
    List<CompletableFuture<Boolean>> inFlight = List.copyOf(compensations);
    if (inFlight.isEmpty()) {
      return 0;
    }
    try {
      CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new))
          .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // counted below; a compensation never fails its stage
    }
    return (int) inFlight.stream().filter(stage -> !stage.isDone()).count();
  }

  private CompletableFuture<Boolean> sendReleaseAbandoned(LockRequest request, LockKeys keys) {
    try {
      return firstContact
          .send(
              () ->
                  scripts.<Long>run(
                      keys.lock(),
                      LuaScripts.RELEASE_ABANDONED,
                      RScript.ReturnType.LONG,
                      List.of(keys.lock(), keys.channel()),
                      request.ownerToken(),
                      Long.toString(LuaScripts.TOMBSTONE_MILLIS)))
          .handle(
              (released, error) -> {
                if (error != null) {
                  LOG.warn(
                      "Redis {}: no reply to the release of lock '{}' after its acquire failed;"
                          + " if that acquire took it and the release did not run, it stays held"
                          + " until its TTL of {} runs out: {}",
                      description,
                      request.lockId(),
                      Durations.format(request.ttl()),
                      RedisFailures.reason(error));
                  return false;
                }
                boolean deleted = released != null && released == 1L;
                if (deleted) {
                  LOG.info(
                      "Redis {}: released lock '{}', taken by an acquire whose reply was lost",
                      description,
                      request.lockId());
                }
                return deleted;
              });
    } catch (RuntimeException e) {
      LOG.warn(
          "Redis {}: could not release lock '{}' after its acquire failed: {}",
          description,
          request.lockId(),
          RedisFailures.reason(e));
      return CompletableFuture.completedFuture(false);
    }
  }

  /**
   * Runs a script that grants or extends leases: alone when no replica need acknowledge it, else
   * followed by {@code WAIT} on the same connection ({@link Scripts#runAcked}).
   */
  private <T> CompletableFuture<Scripts.Acked<T>> granting(
      String key, String lua, RScript.ReturnType type, List<Object> scriptKeys, Object... args) {
    if (replicas == 0) {
      return scripts
          .<T>run(key, lua, type, scriptKeys, args)
          .thenApply(r -> new Scripts.Acked<>(r, 0));
    }
    return scripts.runAcked(key, lua, type, scriptKeys, replicas, replicaTimeout, args);
  }

  /**
   * Refuses a {@code what} ({@code grant}, {@code renewal}) that fewer replicas acknowledged than
   * the options ask for.
   */
  private void checkAcknowledged(String what, String subject, Scripts.Acked<?> acked) {
    if (acked.replicas() >= replicas) {
      return;
    }
    throw new ReplicasMissing(
        "Redis "
            + description
            + " refused the "
            + what
            + " of "
            + subject
            + ": "
            + acked.replicas()
            + " of "
            + replicas
            + " replica(s) acknowledged it within "
            + Durations.format(replicaTimeout)
            + " (replicas="
            + replicas
            + ")"
            + (what.equals("grant") ? "; released it" : ""));
  }

  /** A grant or renewal that fewer replicas acknowledged than the options ask for. */
  static final class ReplicasMissing extends LockProviderException {
    private static final long serialVersionUID = 1L;

    ReplicasMissing(String message) {
      super(message);
    }
  }

  /** Runs one command on one lock and waits for its reply; a failure becomes one clean line. */
  private <T> T call(String action, String lockId, Supplier<? extends CompletionStage<T>> command) {
    return callOn(action, "lock '" + lockId + "'", command);
  }

  /**
   * Runs one command and waits for its reply; a failure becomes one clean line naming {@code
   * subject} ({@code lock 'ID'}, {@code locks 'A', 'B'}).
   */
  private <T> T callOn(
      String action, String subject, Supplier<? extends CompletionStage<T>> command) {
    try {
      return firstContact.send(command).join();
    } catch (RuntimeException e) {
      throw failed(action, subject, e);
    }
  }

  /**
   * Sends one command without waiting; the stage fails with one clean line naming {@code subject}
   * when the command does.
   */
  private <T> CompletableFuture<T> send(
      String action, String subject, Supplier<? extends CompletionStage<T>> command) {
    CompletableFuture<T> sent;
    try {
      sent = firstContact.send(command);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(failed(action, subject, e));
    }
    CompletableFuture<T> answered = new CompletableFuture<>();
    sent.whenComplete(
        (reply, error) -> {
          if (error == null) {
            answered.complete(reply);
          } else {
            answered.completeExceptionally(failed(action, subject, error));
          }
        });
    return answered;
  }

  /** {@code Redis URL failed to ACTION lock 'ID': NODE unreachable: connection refused}. */
  private LockProviderException failed(String action, String subject, Throwable e) {
    Throwable cause = RedisFailures.unwrap(e);
    return new LockProviderException(
        "Redis "
            + description
            + " failed to "
            + action
            + " "
            + subject
            + ": "
            + RedisFailures.reason(cause),
        cause);
  }

  /**
   * {@code locks 'A', 'B', 'C'} for messages, naming at most {@link #NAMED_IN_MESSAGES} ids and
   * counting the rest ({@code and 60 more}).
   */
  static String locksNamed(List<LockRequest> requests) {
    return named("locks ", requests.stream().map(LockRequest::lockId).toList());
  }

  /** {@code leases of locks 'A', 'B'} for messages, as {@link #locksNamed} names locks. */
  static String leasesNamed(List<LeaseGrant> leases) {
    return named(
        leases.size() == 1 ? "the lease of lock " : "leases of locks ",
        leases.stream().map(LeaseGrant::lockId).toList());
  }

  private static String named(String prefix, List<String> lockIds) {
    StringBuilder out = new StringBuilder(prefix);
    int named = Math.min(lockIds.size(), NAMED_IN_MESSAGES);
    for (int i = 0; i < named; i++) {
      out.append(i == 0 ? "'" : ", '").append(lockIds.get(i)).append('\'');
    }
    if (lockIds.size() > named) {
      out.append(" and ").append(lockIds.size() - named).append(" more");
    }
    return out.toString();
  }

  /**
   * The keys of a script over several locks, two per lock in order: its hash key and {@code second}
   * ({@code lock1, second1, lock2, second2, ...}).
   */
  private static List<Object> keyPairs(List<LockKeys> keys, Function<LockKeys, String> second) {
    List<Object> scriptKeys = new ArrayList<>(2 * keys.size());
    for (LockKeys lock : keys) {
      scriptKeys.add(lock.lock());
      scriptKeys.add(second.apply(lock));
    }
    return scriptKeys;
  }

  /**
   * The acquire scripts' four arguments for {@code request}: owner token, ttl in ms, owner
   * description, life of the fencing counter in ms.
   */
  private static List<Object> acquireArguments(LockRequest request) {
    long ttl = millis(request.ttl());
    return List.of(
        request.ownerToken(),
        Long.toString(ttl),
        request.owner(),
        Long.toString(ttl + LuaScripts.FENCE_MARGIN_MILLIS));
  }

  /**
   * The renew scripts' three arguments for {@code lease}: owner token, fencing token, {@code ttl}
   * in ms.
   */
  private static List<Object> renewArguments(LeaseGrant lease, Duration ttl) {
    return List.of(
        lease.ownerToken(), Long.toString(lease.fencingToken()), Long.toString(millis(ttl)));
  }

  private static long millis(Duration ttl) {
    long millis = ttl.toMillis();
    // Round up, so that the lease on the server never ends before the local deadline.
    if (ttl.minusMillis(millis).isZero()) {
      return Math.max(1, millis);
    }
    return millis + 1;
  }

  private static long asLong(Object value) {
    if (value instanceof Number number) {
      return number.longValue();
    }
    return Long.parseLong(String.valueOf(value));
  }
}
