package dev.locksmith.redis;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import dev.locksmith.core.spi.OwnerTokens;
import dev.locksmith.core.spi.RenewalRequest;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Leases in Redis, through Redisson. Each lock is a hash {@code PREFIX:{LOCK_ID}:lock} with a
 * millisecond TTL, its fencing counter {@code PREFIX:{LOCK_ID}:fence}, which lives a minute longer
 * than the last lease granted (see {@link LuaScripts#FENCE_MARGIN_MILLIS}), its wake-up channel
 * {@code PREFIX:{LOCK_ID}:released}, and the marks of acquires whose reply was lost {@code
 * PREFIX:{LOCK_ID}:abandoned}; the hash tag keeps them all in one Cluster slot (a lock id with a
 * hash tag of its own gives its tag instead, see {@link LockKeys}). Acquire, renew and release are
 * atomic Lua scripts, and so is the acquire of several locks at once, all or none ({@link
 * #tryAcquireAll}, where their keys share a slot); renew and release check the owner token and the
 * fencing token, so a lease belongs to its acquisition, not to a thread, and any thread may renew
 * or release it. A release leaves a short-lived record in the lock's hash, so that a release
 * Redisson resent after a lost reply reports the release its first run made (see {@link
 * #release(LeaseGrant)}).
 *
 * <p>Waiters subscribe to the lock's channel and retry when a release is published or the holder's
 * TTL runs out, whichever comes first; there is no polling ({@link Waiting}). Waiters race for a
 * released lock: Redis keeps no queue, so the order is not FIFO.
 *
 * <p>Creating a provider never contacts Redis. Failures to reach Redis surface as {@link
 * LockProviderException} with one line naming the action, the lock, the node and what happened
 * (never Redisson's command dump); Redisson's exception is the cause. A lease whose renewal fails
 * that way, or finds the lease gone after a restart or failover, is reported lost by the caller's
 * renewal. An acquire whose outcome is unknown (its reply was lost) is compensated: a best-effort
 * script deletes the lock if this acquisition's owner token holds it. The scripts' runs are {@link
 * LockCommands}', this translation {@link CommandSender}'s and the compensation {@link
 * Compensations}'.
 *
 * <p>A Redis whose {@code maxmemory-policy} may evict lock keys (anything but {@code noeviction})
 * is refused before the provider's first grant with a {@link
 * dev.locksmith.core.LockConfigurationException}, unless {@link RedisLockOptions#allowEviction()};
 * the check is repeated at each acquire until it passes, so a policy fixed on the server is seen
 * without a restart ({@link EvictionGate}). TTLs are bounded by 365 days, checked before any
 * command is sent.
 */
public final class RedisLockProvider implements LockProvider {
  private final RedisLockOptions options;
  private final String description;
  private final WakeUps wakeUps;
  private final LockCommands commands;
  private final SeveralLocks severalLocks;
  private final PendingReleases pendingReleases = new PendingReleases();
  private final CallChecks checks;
  private final Acquiring acquiring;
  private final Renewing renewing;
  private final Releasing releasing;
  private final ProviderShutdown shutdown;

  /** A provider over {@code client}, which it shuts down on {@link #close()} when it owns it. */
  RedisLockProvider(
      RedissonClient client, boolean ownsClient, RedisLockOptions options, String description) {
    FirstContact firstContact = new FirstContact();
    this.options = options;
    this.description = description;
    this.wakeUps = new WakeUps(client);
    this.commands = new LockCommands(client, firstContact, description, options);
    EvictionGate evictionGate = new EvictionGate(client, options, description, firstContact);
    AcquiresInFlight acquires = new AcquiresInFlight(description, this::releaseAbandoned);
    Config config = client.getConfig();
    BooleanSupplier cluster =
        client instanceof Redisson redisson
            ? () -> config.isClusterConfig() || redisson.getServiceManager().isClusterSetup()
            : config::isClusterConfig;
    this.severalLocks = new SeveralLocks(commands, evictionGate, cluster);
    Waiting waiting = new Waiting(commands, wakeUps, description, acquires::isClosed);
    this.checks = new CallChecks(options.prefix(), acquires);
    this.acquiring =
        new Acquiring(
            checks,
            acquires,
            evictionGate,
            commands,
            pendingReleases,
            waiting,
            severalLocks,
            new LateCopies(ClientLimits.resendAfterNanos(config), commands.compensations()));
    this.renewing = new Renewing(checks, commands, pendingReleases, severalLocks);
    this.releasing = new Releasing(checks, acquires, commands, pendingReleases);
    this.shutdown =
        new ProviderShutdown(
            client,
            ownsClient,
            description,
            acquires,
            pendingReleases,
            commands.compensations(),
            wakeUps,
            firstContact);
  }

  /**
   * A provider over an existing client, such as the one a Spring or Micronaut application already
   * configured. {@link #close()} leaves the client open: its creator shuts it down. Nothing is sent
   * to Redis here; the server's {@code maxmemory-policy} is checked before the first grant.
   *
   * @param client the application's client
   * @param options the key prefix and other options
   * @return the provider
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
   * @param url the provider URL
   * @return the provider, which shuts its client down when closed
   * @throws dev.locksmith.core.LockConfigurationException when a part of the URL is wrong, naming
   *     it
   */
  public static RedisLockProvider create(String url) {
    return RedisLockProviderFactory.provider(dev.locksmith.core.spi.ProviderUrl.parse(url));
  }

  /**
   * The key prefix and other options.
   *
   * @return the options
   */
  public RedisLockOptions options() {
    return options;
  }

  /**
   * {@inheritDoc}
   *
   * <p>When {@link #close()} runs meanwhile, the lock taken is given back (by its owner token,
   * before the client is shut down) and {@link IllegalStateException} is thrown; {@link #acquire}
   * and {@link #tryAcquireAll} do the same.
   */
  @Override
  public Optional<LeaseGrant> tryAcquire(LockRequest request) {
    return acquiring.tryAcquire(request);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One script takes the whole set ({@link LuaScripts#ACQUIRE_ALL}): it checks every lock, and
   * takes all or none, each exactly as {@link #tryAcquire} takes one (same keys, TTL, fencing
   * counter and clock floor), so the leases are renewed, released, listed and waited for like any
   * other. Redis Cluster runs a script only over keys of one slot: there the set goes into one
   * script when every lock's keys share a slot (ids with one hash tag, such as {@code
   * account:{eu}:42} and {@code account:{eu}:43}; see {@link LockKeys}), and otherwise is taken one
   * by one in the given order, as {@link LockProvider#tryAcquireAll} does by default, releasing
   * what was taken when one is busy. A single request is a {@link #tryAcquire}.
   *
   * <p>When the script's reply is lost (the outcome unknown), each lock is released by its
   * request's owner token, without waiting, and the {@link LockProviderException} is thrown.
   */
  @Override
  public Optional<List<LeaseGrant>> tryAcquireAll(List<LockRequest> requests) {
    return acquiring.tryAcquireAll(requests, () -> LockProvider.super.tryAcquireAll(requests));
  }

  /** {@link SeveralLocks#inOneScript}. */
  boolean inOneScript(List<LockKeys> keys, String lockId) {
    return severalLocks.inOneScript(keys, lockId);
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
    return acquiring.acquire(request, timeout);
  }

  @Override
  public Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    return renewing.renew(lease, ttl);
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
    return releasing.release(lease, releaseId);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The release script is sent with Redisson's asynchronous {@code EVALSHA} and nothing waits
   * for it; the stage completes from its reply (on a Redisson thread) with {@link #release}'s
   * outcome and failures, resends included. Until it is answered, the release is this provider's
   * release in flight for the lock id, and a later call on that id is applied after it although
   * Redisson may send it on another connection:
   *
   * <ul>
   *   <li>the first attempt of {@link #tryAcquire} or {@link #acquire} carries the release in its
   *       own script ({@link LuaScripts#ACQUIRE}): when the lease still holds the lock, that script
   *       releases it first, recording the release under its release id, then acquires; so an
   *       immediate re-acquire costs one round trip, as without a release in flight, and whichever
   *       reply comes first answers the release (the late release script finds its record and
   *       returns {@code true} without publishing);
   *   <li>{@link #tryAcquireAll} over several locks, {@link #renew}, {@link #renewAll}, {@link
   *       #release} and {@link #status} wait for the release's answer first (at most the client's
   *       timeout).
   * </ul>
   *
   * <p>{@link #close()} waits for the releases in flight before it shuts Redisson down.
   */
  @Override
  public CompletionStage<Boolean> releaseAsync(LeaseGrant lease) {
    return releasing.releaseAsync(lease);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One script ({@link LuaScripts#RENEW_ALL}) renews the whole batch, each lease exactly as
   * {@link #renew} renews one (owner- and fence-checked). On a Cluster, where a script only runs
   * over keys of one slot, the leases are grouped by slot ({@link KeySlots}), one script a group,
   * all sent before any is awaited. When any script gets no answer, the {@link
   * LockProviderException} is thrown (the others may have renewed their leases).
   */
  @Override
  public List<Optional<LeaseGrant>> renewAll(List<RenewalRequest> requests) {
    return renewing.renewAll(requests);
  }

  @Override
  public LockStatus status(String lockId) {
    LockKeys keys = checks.keys(lockId);
    pendingReleases.awaitAnswered(List.of(lockId));
    return commands.status(lockId, keys);
  }

  @Override
  public String description() {
    return description;
  }

  /**
   * Wakes every waiter of this provider, which then throws a {@link LockProviderException}
   * ("provider closed") holding nothing, and drops the provider's subscriptions; waits for the
   * acquires and synchronous releases in flight to finish (an acquire giving back what it takes,
   * see {@link #tryAcquire}), for the answers of the releases still in flight ({@link
   * #releaseAsync}) and of the compensating releases of failed acquires, at most {@link
   * ProviderShutdown#CLOSE_WAIT}, failing those still unanswered then with a {@link
   * LockProviderException} ("provider closed"); and, when it created the client, shuts the client
   * down. Leases still held expire by their TTL; later calls throw {@link IllegalStateException}.
   */
  @Override
  public void close() {
    shutdown.close();
  }

  /** This provider's releases in flight. */
  PendingReleases pendingReleases() {
    return pendingReleases;
  }

  /**
   * How many lock channels this provider's waiters are subscribed to now, counted once the
   * subscription is in place on Redis (a message published from then on reaches them).
   */
  int subscribedChannels() {
    return wakeUps.subscribedChannels();
  }

  /**
   * Best effort: deletes the lock if {@code request}'s owner token holds it, after an acquire whose
   * outcome is unknown. Never throws; the stage completes with whether a lock was deleted.
   */
  CompletionStage<Boolean> releaseAbandoned(LockRequest request) {
    return commands
        .compensations()
        .release(request, LockKeys.of(options.prefix(), request.lockId()));
  }
}
