package dev.locksmith.benchmarks.redis;

import java.util.List;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

/**
 * The raw floor of a Redis lease: the Locksmith provider's own acquire and release scripts (copied
 * verbatim from {@code dev.locksmith.redis.LuaScripts}, which is package-private), sent over a
 * Redisson client with nothing around them. Two round trips per lock+unlock, the least any
 * owner-checked, fenced Redis lease can cost.
 */
public final class FloorScripts {
  /** {@code LuaScripts.ACQUIRE}: KEYS lock, fence; ARGV owner token, ttl ms, owner. */
  static final String ACQUIRE =
      """
      local held = redis.call('HMGET', KEYS[1], 'token', 'fence')
      if held[1] then
        if held[1] == ARGV[1] then
          return {1, tonumber(held[2])}
        end
        return {0, redis.call('PTTL', KEYS[1])}
      end
      if redis.replicate_commands then
        pcall(redis.replicate_commands)
      end
      local now = redis.call('TIME')
      local floor = tonumber(now[1]) * 1000000 + tonumber(now[2])
      local fence = redis.call('INCR', KEYS[2])
      if fence < floor then
        fence = floor
        redis.call('SET', KEYS[2], string.format('%.0f', fence))
      end
      redis.call('HSET', KEYS[1], 'token', ARGV[1], 'fence', string.format('%.0f', fence),
        'owner', ARGV[3])
      redis.call('PEXPIRE', KEYS[1], ARGV[2])
      return {1, fence}
      """;

  /** {@code LuaScripts.RELEASE}: KEYS lock, channel; ARGV owner token, fencing token. */
  static final String RELEASE =
      """
      local held = redis.call('HMGET', KEYS[1], 'token', 'fence')
      if held[1] == ARGV[1] and held[2] == ARGV[2] then
        redis.call('DEL', KEYS[1])
        redis.call('PUBLISH', KEYS[2], ARGV[2])
        return 1
      end
      return 0
      """;

  private final RScript script;
  private final List<Object> acquireKeys;
  private final List<Object> releaseKeys;
  private final String routingKey;

  /** The floor for lock {@code lockId} under {@code prefix}, with the provider's key layout. */
  public FloorScripts(RedissonClient client, String prefix, String lockId) {
    this.script = client.getScript(org.redisson.client.codec.StringCodec.INSTANCE);
    String base = prefix + ":{" + lockId + "}:";
    this.routingKey = base + "lock";
    this.acquireKeys = List.of(base + "lock", base + "fence");
    this.releaseKeys = List.of(base + "lock", base + "released");
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
            ACQUIRE,
            RScript.ReturnType.LIST,
            acquireKeys,
            ownerToken,
            Long.toString(ttlMillis),
            owner);
    return ((Number) reply.get(0)).longValue() == 1 ? ((Number) reply.get(1)).longValue() : -1;
  }

  /** Runs the release script; whether the lease was still held by {@code ownerToken}. */
  public boolean release(String ownerToken, long fencingToken) {
    Long released =
        script.eval(
            routingKey,
            RScript.Mode.READ_WRITE,
            RELEASE,
            RScript.ReturnType.LONG,
            releaseKeys,
            ownerToken,
            Long.toString(fencingToken));
    return released != null && released == 1L;
  }
}
