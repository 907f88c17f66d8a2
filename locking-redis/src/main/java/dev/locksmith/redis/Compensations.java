package dev.locksmith.redis;

import dev.locksmith.core.Durations;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockRequest;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.redisson.api.RScript;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compensating releases of acquires whose outcome is unknown: the script may have run and only
 * its reply be lost, leaving the lock held by a token that nobody will renew or release. Each is
 * sent best effort and kept until answered, so that closing waits for them before the client is
 * shut down.
 */
final class Compensations {
  // Logged under the provider's name, as operators configure it.
  private static final Logger LOG = LoggerFactory.getLogger(RedisLockProvider.class);

  private final Scripts scripts;
  private final FirstContact firstContact;
  private final String description;
  private final Set<CompletableFuture<Boolean>> compensations = ConcurrentHashMap.newKeySet();

  Compensations(Scripts scripts, FirstContact firstContact, String description) {
    this.scripts = scripts;
    this.firstContact = firstContact;
    this.description = description;
  }

  /**
   * Best effort: deletes the lock if {@code request}'s owner token holds it, after an acquire whose
   * outcome is unknown. Never throws; the stage completes with whether a lock was deleted.
   */
  CompletionStage<Boolean> release(LockRequest request, LockKeys keys) {
    CompletableFuture<Boolean> sent = send(request, keys);
    if (!sent.isDone()) {
      compensations.add(sent);
      sent.whenComplete((released, error) -> compensations.remove(sent));
    }
    return sent;
  }

  /**
   * Waits until every compensating release sent so far ({@link #release}) is answered or failed, at
   * most until {@code deadline} ({@link System#nanoTime()}); each is bounded by Redisson's timeout
   * and retries. Returns how many were still unanswered then.
   */
  int awaitAnswered(long deadline) throws InterruptedException {
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

  private CompletableFuture<Boolean> send(LockRequest request, LockKeys keys) {
    try {
      return firstContact
          .send(
              () ->
                  scripts.<Long>run(
                      keys.lock(),
                      LuaScripts.RELEASE_ABANDONED,
                      RScript.ReturnType.LONG,
                      keys.forCompensation(),
                      request.ownerToken(),
                      Long.toString(LuaScripts.TOMBSTONE_MILLIS),
                      Integer.toString(LuaScripts.ABANDONED_MARKS)))
          .handle(
              (released, error) -> {
                if (error != null) {
                  LOG.warn(
                      "Redis {}: no reply to the release of lock {} after its acquire failed;"
                          + " if that acquire took it and the release did not run, it stays held"
                          + " until its TTL of {} runs out: {}",
                      description,
                      LockIdText.quoted(request.lockId()),
                      Durations.format(request.ttl()),
                      RedisFailures.reason(error));
                  return false;
                }
                boolean deleted = released != null && released == 1L;
                if (deleted) {
                  LOG.info(
                      "Redis {}: released lock {}, taken by an acquire whose reply was lost",
                      description,
                      LockIdText.quoted(request.lockId()));
                }
                return deleted;
              });
    } catch (RuntimeException e) {
      LOG.warn(
          "Redis {}: could not release lock {} after its acquire failed: {}",
          description,
          LockIdText.quoted(request.lockId()),
          RedisFailures.reason(e));
      return CompletableFuture.completedFuture(false);
    }
  }
}
