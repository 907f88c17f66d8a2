package dev.locksmith.redis;

/**
 * The provider's atomic scripts. The lock is a hash {@code token}, {@code fence}, {@code owner}
 * with a millisecond TTL; renew and release act only when both the owner token and the fencing
 * token match, so a stale holder changes nothing.
 */
final class LuaScripts {
  private LuaScripts() {}

  /**
   * KEYS: lock, fence. ARGV: owner token, ttl in ms, owner description. Returns {@code {1, fence}}
   * when granted, {@code {0, pttl}} when another owner holds the lock. Presenting the token that
   * already holds the lock returns its grant again, so a command retried by the client after a lost
   * reply does not lock out its own sender.
   *
   * <p>The fencing counter never goes below the server clock in microseconds: when it is lost (a
   * restart without persistence, a failover to a replica that missed the last increments) the next
   * token still exceeds every earlier one, as long as the servers' clocks did not step back.
   */
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

  /** KEYS: lock. ARGV: owner token, fencing token, ttl in ms. Returns 1 when renewed, else 0. */
  static final String RENEW =
      """
      local held = redis.call('HMGET', KEYS[1], 'token', 'fence')
      if held[1] == ARGV[1] and held[2] == ARGV[2] then
        redis.call('PEXPIRE', KEYS[1], ARGV[3])
        return 1
      end
      return 0
      """;

  /**
   * KEYS: lock, channel. ARGV: owner token, fencing token. Deletes the lock and publishes the
   * fencing token on the channel; returns 1 when released, else 0.
   */
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

  /**
   * KEYS: lock, channel. ARGV: owner token. The compensation for an acquire whose reply was lost:
   * deletes the lock only when it is held by that owner token (which the caller regards as not
   * acquired), publishes on the channel to wake waiters, and returns 1; else changes nothing and
   * returns 0.
   */
  static final String RELEASE_ABANDONED =
      """
      if redis.call('HGET', KEYS[1], 'token') == ARGV[1] then
        redis.call('DEL', KEYS[1])
        redis.call('PUBLISH', KEYS[2], 'abandoned')
        return 1
      end
      return 0
      """;

  /** KEYS: lock. Read-only. Returns {@code {}} when free, else {@code {fence, owner, pttl}}. */
  static final String STATUS =
      """
      local held = redis.call('HMGET', KEYS[1], 'fence', 'owner')
      if not held[1] then
        return {}
      end
      return {held[1], held[2] or '', redis.call('PTTL', KEYS[1])}
      """;
}
