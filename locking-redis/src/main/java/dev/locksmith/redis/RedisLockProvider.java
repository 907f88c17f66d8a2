package dev.locksmith.redis;

import dev.locksmith.core.Durations;
import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.core.spi.OwnerTokens;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RFuture;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leases in Redis, through Redisson. Each lock is a hash {@code PREFIX:{LOCK_ID}:lock} with a
 * millisecond TTL, its fencing counter {@code PREFIX:{LOCK_ID}:fence}, which lives a minute longer
 * than the last lease granted (see {@link LuaScripts#FENCE_MARGIN_MILLIS}), and its wake-up channel
 * {@code PREFIX:{LOCK_ID}:released}; the hash tag keeps all three in one Cluster slot. Acquire,
 * renew and release are atomic Lua scripts; renew and release check the owner token and the fencing
 * token, so a lease belongs to its acquisition, not to a thread, and any thread may renew or
 * release it. A release leaves a short-lived record in the lock's hash, so that a release Redisson
 * resent after a lost reply reports the release its first run made (see {@link
 * #release(LeaseGrant)}).
 *
 * <p>Waiters subscribe to the lock's channel and retry when a release is published or the holder's
 * TTL runs out, whichever comes first; there is no polling. Waiters race for a released lock: Redis
 * keeps no queue, so the order is not FIFO.
 *
 * <p>Creating a provider never contacts Redis. Failures to reach Redis surface as {@link
 * LockProviderException} with one line naming the action, the lock, the node and what happened
 * (never Redisson's command dump); Redisson's exception is the cause. A lease whose renewal fails
 * that way, or finds the lease gone after a restart or failover, is reported lost by the caller's
 * renewal. An acquire whose outcome is unknown (its reply was lost) is compensated: a best-effort
 * script deletes the lock if this acquisition's owner token holds it.
 *
 * <p>A Redis whose {@code maxmemory-policy} may evict lock keys (anything but {@code noeviction})
 * is refused before the provider's first grant with a {@link
 * dev.locksmith.core.LockConfigurationException}, unless {@link RedisLockOptions#allowEviction()};
 * the check is repeated at each acquire until it passes, so a policy fixed on the server is seen
 * without a restart. TTLs are bounded by 365 days, checked before any command is sent.
 */
public final class RedisLockProvider implements LockProvider {
  private static final Logger LOG = LoggerFactory.getLogger(RedisLockProvider.class);

  /** The longest TTL in days; see {@link #MAX_TTL}. */
  static final int MAX_TTL_DAYS = 365;

  /**
   * The longest TTL a request or renewal may give: 365 days, the bound Locksmith's engine puts on
   * every ttl ({@code Durations.MAX} in locking-core). Longer leases are a mistake rather than a
   * need, and the bound keeps every value computed from a TTL far from overflow: the milliseconds
   * sent to Redis, {@code ttl.toNanos()} and the local deadline {@code nanoTime + ttl}. Without it
   * a TTL of 200000 days ran the acquire script and then overflowed, leaving a lock held for
   * centuries by an acquisition that had failed; now it fails with an {@link
   * IllegalArgumentException} before any command is sent.
   */
  static final Duration MAX_TTL = Duration.ofDays(MAX_TTL_DAYS);

  /** Waits longer than this (about 73 years) are waits without end; it keeps deadlines finite. */
  private static final long MAX_WAIT_NANOS = Long.MAX_VALUE / 4;

  private final RedissonClient client;
  private final boolean ownsClient;
  private final RedisLockOptions options;
  private final String description;
  private final RScript script;
  private final WakeUps wakeUps;
  private final FirstContact firstContact = new FirstContact();
  // The maxmemory-policy check in progress, shared by the threads that need it meanwhile.
  private final AtomicReference<@Nullable CompletableFuture<Void>> evictionCheck =
      new AtomicReference<>();
  private volatile boolean evictionChecked;
  private volatile boolean closed;

  private RedisLockProvider(
      RedissonClient client, boolean ownsClient, RedisLockOptions options, String description) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.options = options;
    this.description = description;
    this.script = client.getScript(StringCodec.INSTANCE);
    this.wakeUps = new WakeUps(client);
  }

  /**
   * A provider over an existing client, such as the one a Spring or Micronaut application already
   * configured. {@link #close()} leaves the client open: its creator shuts it down. Nothing is sent
   * to Redis here; the server's {@code maxmemory-policy} is checked before the first grant.
   */
  public static RedisLockProvider create(RedissonClient client, RedisLockOptions options) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(options, "options");
    return new RedisLockProvider(
        client,
        false,
        options,
        "redis (application RedissonClient, prefix " + options.prefix() + ")");
  }

  /**
   * A provider for a URL such as {@code redis://host:6379/0?prefix=app}; see the module's README
   * for the forms and parameters. It owns the client it creates and shuts it down on {@link
   * #close()}.
   *
   * <p>Only the URL is checked: the client connects at the first call, so this succeeds while Redis
   * is down, and calls fail with {@link LockProviderException} until it is up.
   *
   * @throws dev.locksmith.core.LockConfigurationException when a part of the URL is wrong, naming
   *     it
   */
  public static RedisLockProvider create(String url) {
    return (RedisLockProvider)
        new RedisLockProviderFactory().create(dev.locksmith.core.spi.ProviderUrl.parse(url));
  }

  /**
   * A provider that shuts {@code client} down when closed, or at once when the provider cannot be
   * created.
   */
  static RedisLockProvider owning(
      RedissonClient client, RedisLockOptions options, String description) {
    try {
      return new RedisLockProvider(client, true, options, description);
    } catch (RuntimeException e) {
      try {
        client.shutdown(0, 2, TimeUnit.SECONDS);
      } catch (RuntimeException shutdown) {
        e.addSuppressed(shutdown);
      }
      throw e;
    }
  }

  /** The key prefix and other options. */
  public RedisLockOptions options() {
    return options;
  }

  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    checkTtl(request.ttl());
    LockKeys keys = keys(request.lockId());
    ensureEvictionChecked(request.lockId());
    long sentAt = System.nanoTime();
    Attempt attempt = attempt(request, keys);
    return attempt.granted() ? Optional.of(grant(request, attempt, sentAt)) : Optional.empty();
  }

  /**
   * {@inheritDoc}
   *
   * <p>The first attempt always runs, as {@link #tryAcquire} does; after it, no command (attempt or
   * subscription) starts once {@code timeout} has passed. So the call returns or fails at most one
   * command's worst case after {@code timeout} (with a URL's default settings 2 s, see the README);
   * on the provider's first grant, whose {@code maxmemory-policy} check comes first, at most two.
   */
  @Override
  public Optional<LeaseGrant> acquire(LockRequest request, Duration timeout)
      throws InterruptedException {
    checkTtl(request.ttl());
    long deadline = System.nanoTime() + waitNanos(timeout);
    LockKeys keys = keys(request.lockId());
    ensureEvictionChecked(request.lockId());
    long sentAt = System.nanoTime();
    Attempt attempt = attempt(request, keys);
    if (attempt.granted()) {
      return Optional.of(grant(request, attempt, sentAt));
    }
    if (deadline - System.nanoTime() <= 0) {
      return Optional.empty();
    }
    WakeUps.Waiter waiter = subscribe(keys);
    try {
      while (true) {
        ensureOpen();
        if (deadline - System.nanoTime() <= 0) {
          // Never start a command after the deadline (subscribing may have used the rest).
          return Optional.empty();
        }
        // Subscribed before this attempt: a release from now on wakes the wait below.
        sentAt = System.nanoTime();
        attempt = attempt(request, keys);
        if (attempt.granted()) {
          return Optional.of(grant(request, attempt, sentAt));
        }
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          return Optional.empty();
        }
        // The holder's TTL bounds the wait in case a release message is lost.
        long holderLeft =
            attempt.value() > 0
                ? TimeUnit.MILLISECONDS.toNanos(attempt.value() + 1)
                : TimeUnit.MILLISECONDS.toNanos(100);
        waiter.await(Math.min(remaining, holderLeft));
        ensureOpen();
      }
    } finally {
      wakeUps.unregister(waiter);
    }
  }

  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    checkTtl(ttl);
    LockKeys keys = keys(lease.lockId());
    long sentAt = System.nanoTime();
    Long renewed =
        call(
            "renew",
            lease.lockId(),
            () ->
                script.evalAsync(
                    keys.lock(),
                    RScript.Mode.READ_WRITE,
                    LuaScripts.RENEW,
                    RScript.ReturnType.LONG,
                    List.of(keys.lock(), keys.channel()),
                    lease.ownerToken(),
                    Long.toString(lease.fencingToken()),
                    Long.toString(millis(ttl))));
    if (renewed == null || renewed != 1L) {
      return Optional.empty();
    }
    return Optional.of(lease.renewed(ttl, sentAt + ttl.toNanos()));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Idempotent under Redisson's resends: each call carries a new release id, and when its first
   * run released the lease but the reply was lost (a response timeout, a dropped connection), the
   * resend finds that release recorded and returns {@code true} without publishing again. Another
   * call for a lease already released returns {@code false}, as for any lease no longer held.
   */
  @Override
  public boolean release(LeaseGrant lease) {
    return release(lease, OwnerTokens.newToken());
  }

  /**
   * Runs the release script with {@code releaseId}; every run with the same id is what a resend of
   * one {@link #release(LeaseGrant)} call sends.
   */
  boolean release(LeaseGrant lease, String releaseId) {
    LockKeys keys = keys(lease.lockId());
    Long released =
        call(
            "release",
            lease.lockId(),
            () ->
                script.evalAsync(
                    keys.lock(),
                    RScript.Mode.READ_WRITE,
                    LuaScripts.RELEASE,
                    RScript.ReturnType.LONG,
                    List.of(keys.lock(), keys.channel()),
                    lease.ownerToken(),
                    Long.toString(lease.fencingToken()),
                    releaseId,
                    Long.toString(LuaScripts.TOMBSTONE_MILLIS),
                    Integer.toString(LuaScripts.RELEASE_RECORDS)));
    return released != null && released == 1L;
  }

  @Override
  public LockStatus status(String lockId) {
    LockKeys keys = keys(lockId);
    List<Object> reply =
        call(
            "read the status of",
            lockId,
            () ->
                script.evalAsync(
                    keys.lock(),
                    RScript.Mode.READ_ONLY,
                    LuaScripts.STATUS,
                    RScript.ReturnType.LIST,
                    List.of(keys.lock())));
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

  @Override
  public String description() {
    return description;
  }

  /**
   * Wakes every waiter of this provider, which then throws a {@link LockProviderException}
   * ("provider closed") holding nothing, drops the provider's subscriptions and, when it created
   * the client, shuts the client down. Leases still held expire by their TTL; later calls throw
   * {@link IllegalStateException}.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    wakeUps.close();
    firstContact.close();
    if (ownsClient) {
      try {
        client.shutdown(0, 2, TimeUnit.SECONDS);
      } catch (RuntimeException e) {
        LOG.debug("Shutting down the Redisson client of {} failed: {}", description, e.toString());
      }
    }
  }

  /** How many lock channels this provider's waiters are subscribed to now. */
  int subscribedChannels() {
    return wakeUps.subscribedChannels();
  }

  private LockKeys keys(String lockId) {
    if (closed) {
      throw new IllegalStateException("Lock provider " + description + " is closed");
    }
    return LockKeys.of(options.prefix(), lockId);
  }

  /**
   * Checks the server's {@code maxmemory-policy} before the provider's first grant, the first
   * contact that matters; until a check passes (or finds the policy unreadable, which warns), every
   * acquire checks again. See {@link EvictionPolicy}.
   */
  private void ensureEvictionChecked(String lockId) {
    if (evictionChecked) {
      return;
    }
    CompletableFuture<Void> mine = new CompletableFuture<>();
    CompletableFuture<Void> running = evictionCheck.compareAndExchange(null, mine);
    try {
      if (running != null) {
        // Another thread checks now: share its outcome rather than queue behind it, so that no
        // caller waits longer than one check while Redis is down. Not interruptible, as a call.
        running.join();
        return;
      }
      try {
        if (!evictionChecked) {
          firstContact.run(() -> EvictionPolicy.check(client, options, description));
          evictionChecked = true;
        }
        mine.complete(null);
      } catch (RuntimeException e) {
        mine.completeExceptionally(e);
        throw e;
      } finally {
        evictionCheck.set(null);
      }
    } catch (RuntimeException e) {
      throw checkFailed(lockId, e);
    }
  }

  /**
   * The failed check as this acquire's failure: the refusal as it is (a new exception when it was
   * another thread's), a server not reached as {@code failed to acquire lock 'ID': ...}.
   */
  private RuntimeException checkFailed(String lockId, RuntimeException e) {
    Throwable failure = RedisFailures.unwrap(e);
    if (failure instanceof LockConfigurationException refused) {
      return refused == e ? refused : new LockConfigurationException(refused.getMessage(), refused);
    }
    Throwable cause =
        failure instanceof LockProviderException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return new LockProviderException(
        "Redis "
            + description
            + " failed to acquire lock '"
            + lockId
            + "': "
            + RedisFailures.reason(cause)
            + " (reading maxmemory-policy before the first grant)",
        cause);
  }

  /**
   * Refuses a TTL that is not positive or is longer than {@link #MAX_TTL}, before anything is sent.
   */
  static Duration checkTtl(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive, was " + ttl);
    }
    if (ttl.compareTo(MAX_TTL) > 0) {
      throw new IllegalArgumentException(
          "ttl "
              + Durations.format(ttl)
              + " is longer than the longest the Redis provider grants, "
              + MAX_TTL_DAYS
              + "d");
    }
    return ttl;
  }

  /** A wait's length in nanoseconds, 0 when negative and at most {@link #MAX_WAIT_NANOS}. */
  private static long waitNanos(Duration timeout) {
    if (timeout.isNegative()) {
      return 0;
    }
    if (timeout.compareTo(Duration.ofNanos(MAX_WAIT_NANOS)) >= 0) {
      return MAX_WAIT_NANOS;
    }
    return timeout.toNanos();
  }

  /** For a waiter: the provider was closed while it waited. */
  private void ensureOpen() {
    if (closed) {
      throw new LockProviderException("Redis " + description + ": provider closed");
    }
  }

  /** One acquire script run: granted with a fencing token, or refused with the holder's pttl. */
  private record Attempt(boolean granted, long value) {}

  private Attempt attempt(LockRequest request, LockKeys keys) {
    try {
      return attemptOnce(request, keys);
    } catch (LockProviderException e) {
      // The script may have run and only its reply be lost: then the lock is held by a token
      // that nobody will renew or release. Release it by that token, without waiting.
      releaseAbandoned(request, keys);
      throw e;
    }
  }

  private Attempt attemptOnce(LockRequest request, LockKeys keys) {
    List<Object> reply =
        call(
            "acquire",
            request.lockId(),
            () ->
                script.evalAsync(
                    keys.lock(),
                    RScript.Mode.READ_WRITE,
                    LuaScripts.ACQUIRE,
                    RScript.ReturnType.LIST,
                    List.of(keys.lock(), keys.fence()),
                    request.ownerToken(),
                    Long.toString(millis(request.ttl())),
                    request.owner(),
                    Long.toString(millis(request.ttl()) + LuaScripts.FENCE_MARGIN_MILLIS)));
    if (reply == null || reply.size() != 2) {
      throw new LockProviderException(
          "Redis "
              + description
              + " gave an unexpected reply to acquire lock '"
              + request.lockId()
              + "': "
              + reply);
    }
    return new Attempt(asLong(reply.get(0)) == 1L, asLong(reply.get(1)));
  }

  /**
   * Best effort: deletes the lock if {@code request}'s owner token holds it, after an acquire whose
   * outcome is unknown. Never throws; the stage completes with whether a lock was deleted.
   */
  CompletionStage<Boolean> releaseAbandoned(LockRequest request) {
    return releaseAbandoned(request, LockKeys.of(options.prefix(), request.lockId()));
  }

  private CompletionStage<Boolean> releaseAbandoned(LockRequest request, LockKeys keys) {
    try {
      return firstContact
          .send(
              () ->
                  script.<Long>evalAsync(
                      keys.lock(),
                      RScript.Mode.READ_WRITE,
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

  private static LeaseGrant grant(LockRequest request, Attempt attempt, long sentAt) {
    return new LeaseGrant(
        request.lockId(),
        request.ownerToken(),
        attempt.value(),
        request.ttl(),
        sentAt + request.ttl().toNanos());
  }

  /**
   * Subscribes to the lock's release channel; when subscribing fails the waiter polls instead, so a
   * Redisson subscription hiccup slows a wait down but never fails it. A Redis that is down fails
   * the next attempt anyway.
   */
  private WakeUps.Waiter subscribe(LockKeys keys) {
    ensureOpen();
    try {
      return wakeUps.register(keys.channel());
    } catch (WakeUps.ClosedException e) {
      throw new LockProviderException("Redis " + description + ": provider closed", e);
    } catch (RuntimeException e) {
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      LOG.debug(
          "Redis {} could not subscribe to {}; polling instead: {}",
          description,
          keys.channel(),
          RedisFailures.reason(cause),
          cause);
      return WakeUps.Waiter.polling();
    }
  }

  /**
   * Runs one command and waits for its reply without being interruptible, so an interrupt never
   * leaves a command's outcome unknown; Redisson's timeout and retry settings bound the wait (and,
   * before the client's first connection, its connect timeout and retries; see {@link
   * FirstContact}). A failure becomes a {@link LockProviderException} with one clean line.
   */
  private <T> T call(String action, String lockId, Supplier<RFuture<T>> command) {
    try {
      return firstContact.send(command).join();
    } catch (RuntimeException e) {
      throw failed(action, lockId, e);
    }
  }

  /** {@code Redis URL failed to ACTION lock 'ID': NODE unreachable: connection refused}. */
  private LockProviderException failed(String action, String lockId, RuntimeException e) {
    Throwable cause = RedisFailures.unwrap(e);
    return new LockProviderException(
        "Redis "
            + description
            + " failed to "
            + action
            + " lock '"
            + lockId
            + "': "
            + RedisFailures.reason(cause),
        cause);
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
