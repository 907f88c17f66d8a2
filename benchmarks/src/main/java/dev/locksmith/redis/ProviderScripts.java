package dev.locksmith.redis;

import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.NullMarked;

/**
 * The Redis provider's own acquire and release scripts with their keys and arguments, for the raw
 * floor of the Redis benchmark ({@code dev.locksmith.benchmarks.redis.FloorScripts}). It sits in
 * the provider's package, in the benchmarks module, because the scripts are package-private there:
 * the floor runs what the provider runs, never a copy of it.
 *
 * <p>Null-marked here rather than in a {@code package-info.java}, which the provider's jar already
 * has for this package.
 */
@NullMarked
public final class ProviderScripts {
  /** The acquire script; keys {@link #acquireKeys}, arguments {@link #acquireArgs}. */
  public static final String ACQUIRE = LuaScripts.ACQUIRE;

  /** The release script; keys {@link #releaseKeys}, arguments {@link #releaseArgs}. */
  public static final String RELEASE = LuaScripts.RELEASE;

  private ProviderScripts() {}

  /** The key the scripts of {@code lockId} are routed by (its lease hash). */
  public static String routingKey(String prefix, String lockId) {
    return LockKeys.of(prefix, lockId).lock();
  }

  /** The acquire script's keys for {@code lockId}, as the provider sends them. */
  public static List<Object> acquireKeys(String prefix, String lockId) {
    return LockKeys.of(prefix, lockId).forAcquire();
  }

  /** The release script's keys for {@code lockId}, as the provider sends them. */
  public static List<Object> releaseKeys(String prefix, String lockId) {
    return LockKeys.of(prefix, lockId).forRelease();
  }

  /** The acquire script's arguments for {@code lockId}, as the provider sends them. */
  public static Object[] acquireArgs(
      String lockId, String ownerToken, long ttlMillis, String owner) {
    return ScriptArguments.acquire(
            new LockRequest(lockId, ownerToken, Duration.ofMillis(ttlMillis), owner))
        .toArray();
  }

  /** The release script's arguments, as the provider sends them. */
  public static Object[] releaseArgs(String ownerToken, long fencingToken, String releaseId) {
    return new Object[] {
      ownerToken,
      Long.toString(fencingToken),
      releaseId,
      Long.toString(LuaScripts.TOMBSTONE_MILLIS),
      Integer.toString(LuaScripts.RELEASE_RECORDS)
    };
  }
}
