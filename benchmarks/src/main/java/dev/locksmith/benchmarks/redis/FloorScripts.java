package dev.locksmith.benchmarks.redis;

import dev.locksmith.core.spi.OwnerTokens;
import dev.locksmith.redis.ProviderScripts;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

/**
 * The raw floor of a Redis lease: the Locksmith provider's own acquire and release scripts, with
 * its keys and arguments ({@link ProviderScripts}), sent over a Redisson client with nothing around
 * them. Two round trips per lock+unlock, the least any owner-checked, fenced Redis lease can cost.
 */
public final class FloorScripts {
  private final RScript script;
  private final List<Object> acquireKeys;
  private final List<Object> releaseKeys;
  private final String routingKey;
  private final String lockId;

  /** The floor for lock {@code lockId} under {@code prefix}, with the provider's key layout. */
  public FloorScripts(RedissonClient client, String prefix, String lockId) {
    this.script = client.getScript(org.redisson.client.codec.StringCodec.INSTANCE);
    this.routingKey = ProviderScripts.routingKey(prefix, lockId);
    this.lockId = lockId;
    this.acquireKeys = ProviderScripts.acquireKeys(prefix, lockId);
    this.releaseKeys = ProviderScripts.releaseKeys(prefix, lockId);
  }

  /**
   * Runs the acquire script.
   *
   * @return the fencing token, or {@code -1} when another owner holds the lock
   */
  public long acquire(String ownerToken, long ttlMillis, String owner) {
    List<Object> reply =
        script.eval(
            routingKey,
            RScript.Mode.READ_WRITE,
            ProviderScripts.ACQUIRE,
            RScript.ReturnType.LIST,
            acquireKeys,
            ProviderScripts.acquireArgs(lockId, ownerToken, ttlMillis, owner));
    return ((Number) reply.get(0)).longValue() == 1 ? ((Number) reply.get(1)).longValue() : -1;
  }

  /**
   * Runs the release script with a new release id, as the provider does; whether the lease was
   * still held by {@code ownerToken}.
   */
  public boolean release(String ownerToken, long fencingToken) {
    return releaseAsync(ownerToken, fencingToken).join();
  }

  /**
   * Sends the release script with a new release id without waiting for its reply.
   *
   * @return whether the lease was still held by {@code ownerToken}, once answered
   */
  public CompletableFuture<Boolean> releaseAsync(String ownerToken, long fencingToken) {
    String releaseId = OwnerTokens.newToken();
    return script
        .<Long>evalAsync(
            routingKey,
            RScript.Mode.READ_WRITE,
            ProviderScripts.RELEASE,
            RScript.ReturnType.LONG,
            releaseKeys,
            ProviderScripts.releaseArgs(ownerToken, fencingToken, releaseId))
        .toCompletableFuture()
        .thenApply(released -> released != null && released == 1L);
  }
}
