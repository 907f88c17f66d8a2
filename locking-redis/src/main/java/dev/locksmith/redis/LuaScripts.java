package dev.locksmith.redis;

/**
 * The provider's atomic scripts. A held lock is a hash {@code token}, {@code fence}, {@code owner}
 * with the lease's millisecond TTL; renew and release act only when both the owner token and the
 * fencing token match, so a stale holder changes nothing. The functions several scripts call are in
 * {@link LuaFunctions}.
 *
 * <p>A release does not delete the hash: it removes the lease's fields and records itself in the
 * field {@code released}, a space-separated list, newest first, of the last {@link
 * #RELEASE_RECORDS} releases of the lock as {@code OWNER_TOKEN/RELEASE_ID}. The release id is new
 * for every release call and the same in every resend of that call, so a release that Redisson
 * resent after its reply was lost (a response timeout, a dropped connection) finds its own record
 * and reports the release its first run made, while another release call of the same lease, or a
 * stale owner, still gets 0. The records also refuse a copy of an acquire that arrives after its
 * lease was released (Redisson resent it, and the first copy came last). A hash without {@code
 * token} is a free lock: acquire takes it, keeping the release records, and status and renew see no
 * lease.
 *
 * <p>The owner tokens of acquires whose reply was lost and that were compensated ({@link
 * #RELEASE_ABANDONED}), which acquire refuses, live in a key of their own (with the lock's hash
 * tag): in the hash they would end with the next lease's TTL.
 */
final class LuaScripts {
  private LuaScripts() {}

  /**
   * How long a released lock's hash (a tombstone holding only the release records) lives, in
   * milliseconds. A resend comes within Redisson's retry window, {@code retry-attempts × (timeout +
   * retry-interval)} after the first run (1 s with the URL's defaults, up to 20 s with Redisson 4's
   * own); a minute covers that with room for larger settings, and the tombstone costs one small
   * hash per lock id released in the last minute.
   */
  static final long TOMBSTONE_MILLIS = 60_000;

  /**
   * How many releases a lock's hash remembers. A resend is recognised while fewer releases of the
   * same lock followed it; the bound keeps a busy lock's hash small (about 60 bytes a record).
   */
  static final int RELEASE_RECORDS = 16;

  /**
   * How much longer than the lease the fencing counter key lives after each grant, in milliseconds.
   * The counter only matters while its value is at or above the server clock in microseconds, which
   * every grant's token is floored at (see {@link #ACQUIRE}): a token is the clock at its grant
   * unless grants came faster than one a microsecond or the clock stepped back, so the clock passes
   * the stored value at once in the usual case, and within the size of the step after a step back.
   * Keeping the key for the lease's TTL and this minute longer covers a clock stepped back by up to
   * that much; after that the key holds nothing the clock does not, and Redis drops it, so per-lock
   * state does not grow with the number of lock ids ever used.
   */
  static final long FENCE_MARGIN_MILLIS = 60_000;

  /**
   * How many owner tokens of abandoned acquires a lock remembers ({@link #RELEASE_ABANDONED}): a
   * copy of such an acquire still on its way is refused while fewer compensations of the same lock
   * followed it (and for {@link #TOMBSTONE_MILLIS} after the last).
   */
  static final int ABANDONED_MARKS = 16;

  /**
   * KEYS: lock, fence, abandoned. ARGV: owner token, ttl in ms, owner description, life of the
   * fencing counter in ms (the ttl plus {@link #FENCE_MARGIN_MILLIS}). Returns {@code {1, fence}}
   * when granted, {@code {0, pttl}} when another owner holds the lock. Presenting the token that
   * already holds the lock returns its grant again, so a command retried by the client after a lost
   * reply does not lock out its own sender; the lock's TTL starts again then when less of it is
   * left, since the caller counts its deadline from this request (a wait's later attempt finding
   * its earlier one's grant kept the first take's expiry, which came before that deadline), and is
   * never shortened (a late copy arriving after a longer renewal must not cut the lease short). An
   * owner token done with the lock is refused like a busy lock: one marked abandoned, and one whose
   * release is among the hash's release records (a copy of its acquire that arrives after its lease
   * was released must not take the lock for a whole TTL on behalf of an owner who has finished;
   * when a lease that followed ran out without a release, its hash and the records went with it,
   * and such a copy is no longer recognised). A hash without {@code token} (a released lock's
   * tombstone) is free; taking it keeps its release records, so that a release resent after the
   * lock changed hands is still recognised.
   *
   * <p>Optional ARGV 5-8 fold in a release of this provider still in flight for the same lock (see
   * {@link RedisLockProvider#releaseAsync}): its owner token, fencing token, release id and the
   * records kept. When that lease still holds the lock, it is released first exactly as {@link
   * #RELEASE} releases it (its record written) but without publishing, since the lock is taken
   * again in the same run: the new grant's fields replace the old lease's in one write, and the
   * lock is not read twice. The reply then ends with a third element, the release's outcome: 1 when
   * it released now or its record shows it ran before, else 0. The {@link #RELEASE} still in flight
   * then finds its record and returns 1 without publishing.
   *
   * <p>The fencing counter never goes below the server clock in microseconds: when it is lost (a
   * restart without persistence, a failover to a replica that missed the last increments, or its
   * own expiry) the next token still exceeds every earlier one, as long as the server's clock did
   * not step back by more than the counter's life (and, after a failover, the new master's clock is
   * not behind the old one's by more). Each grant gives the counter that life again, so the key of
   * a lock id no longer used disappears.
   */
  static final String ACQUIRE =
      LuaFunctions.RELEASE_CHECK
          + LuaFunctions.GRANT
          + LuaFunctions.GIVEN_UP
          + """
      local folded = nil
      local records = nil
      local held = nil
      if ARGV[5] then
        local outcome, kept, seen = release_check(KEYS[1], ARGV[5], ARGV[6], ARGV[7], ARGV[8])
        if outcome then
          folded = 1
        else
          folded = 0
        end
        if outcome == 'now' then
          records = kept
        end
        held = seen
      end
      held = held or redis.call('HMGET', KEYS[1], 'token', 'fence', 'released')
      if not records then
        if held[1] then
          local left = redis.call('PTTL', KEYS[1])
          local answer = {0, left}
          if held[1] == ARGV[1] then
            -- Only lengthened: a late copy must not cut short a lease renewed for longer since.
            if left < tonumber(ARGV[2]) then
              redis.call('PEXPIRE', KEYS[1], ARGV[2])
            end
            answer = {1, tonumber(held[2])}
          end
          if folded then
            answer[3] = folded
          end
          return answer
        end
      end
      if given_up(KEYS[3], records or held[3], ARGV[1]) then
        local refused = {0, redis.call('PTTL', KEYS[1])}
        if folded then
          refused[3] = 0
        end
        return refused
      end
      local fence = grant(KEYS[1], KEYS[2], clock_micros(), ARGV[1], ARGV[2], ARGV[3], ARGV[4],
        records)
      if folded then
        return {1, fence, folded}
      end
      return {1, fence}
      """;

  /**
   * {@link #ACQUIRE} for several locks at once, all or none. KEYS: lock, fence and abandoned of
   * each lock, in lock order ({@code lock1, fence1, abandoned1, lock2, ...}). ARGV: four per lock,
   * in the same order: owner token, ttl in ms, owner description, life of the fencing counter in
   * ms. Every lock is checked before anything is written: when one is held by another owner token
   * (or is free and its request's owner token is done with it, as {@link #ACQUIRE} checks), nothing
   * changes and the reply is {@code {0, index, pttl}} (the 1-based index of the first busy lock and
   * its holder's pttl). Otherwise every lock is taken exactly as {@link #ACQUIRE} takes one (same
   * fields, TTL, counter, clock floor and counter life), a lock already held by its own request's
   * owner token (a resend after a lost reply) keeping its grant with its TTL started again when
   * less of it is left, and the reply is {@code {1, fence1, fence2, ...}}.
   */
  static final String ACQUIRE_ALL =
      LuaFunctions.GRANT
          + LuaFunctions.GIVEN_UP
          + """
      local count = #KEYS / 3
      local held = {}
      for i = 1, count do
        local lock = KEYS[3 * i - 2]
        held[i] = redis.call('HMGET', lock, 'token', 'fence', 'released')
        if (held[i][1] and held[i][1] ~= ARGV[4 * i - 3])
            or (not held[i][1] and given_up(KEYS[3 * i], held[i][3], ARGV[4 * i - 3])) then
          return {0, i, redis.call('PTTL', lock)}
        end
      end
      local floor = clock_micros()
      local reply = {1}
      for i = 1, count do
        local a = 4 * i - 3
        if held[i][1] then
          if redis.call('PTTL', KEYS[3 * i - 2]) < tonumber(ARGV[a + 1]) then
            redis.call('PEXPIRE', KEYS[3 * i - 2], ARGV[a + 1])
          end
          reply[i + 1] = tonumber(held[i][2])
        else
          reply[i + 1] =
            grant(KEYS[3 * i - 2], KEYS[3 * i - 1], floor, ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3])
        end
      end
      return reply
      """;

  /**
   * KEYS: lock, channel. ARGV: owner token, fencing token, ttl in ms, {@code 1} to set the ttl
   * exactly or {@code 0} to only lengthen. Returns 1 when renewed, else 0 (also for a released
   * lease, whose hash has no {@code token}). A renewal for the lease's own ttl only lengthens it: a
   * late copy of an earlier renewal or take (Redisson resends a command whose reply is late, and
   * the first copy may arrive last) does not cut short a lease renewed for longer since, and a
   * resend after success extends again from its arrival, still no earlier than the caller's local
   * deadline. A renewal for another ttl (the engine's {@code minHold} at release) sets it exactly;
   * one that shortens the lease publishes on the channel, so waiters re-check at once and follow
   * the new end by push instead of sleeping out the old TTL.
   */
  static final String RENEW =
      """
      local held = redis.call('HMGET', KEYS[1], 'token', 'fence')
      if held[1] == ARGV[1] and held[2] == ARGV[2] then
        local before = redis.call('PTTL', KEYS[1])
        if ARGV[4] == '1' or tonumber(ARGV[3]) > before then
          redis.call('PEXPIRE', KEYS[1], ARGV[3])
          if tonumber(ARGV[3]) < before then
            redis.call('PUBLISH', KEYS[2], 'shortened')
          end
        end
        return 1
      end
      return 0
      """;

  /**
   * {@link #RENEW} for several leases in one run. KEYS: lock and channel of each lease, in order
   * ({@code lock1, channel1, lock2, channel2, ...}). ARGV: four per lease, in the same order: owner
   * token, fencing token, ttl in ms, exactly or only lengthened. Each lease is renewed exactly as
   * {@link #RENEW} renews one (owner- and fence-checked, only lengthened for its own ttl,
   * publishing when shortened); returns one 1 (renewed) or 0 (not held by that owner and token) per
   * lease, in order.
   */
  static final String RENEW_ALL =
      """
      local reply = {}
      for i = 1, #KEYS / 2 do
        local lock = KEYS[2 * i - 1]
        local a = 4 * i - 3
        local held = redis.call('HMGET', lock, 'token', 'fence')
        if held[1] == ARGV[a] and held[2] == ARGV[a + 1] then
          local before = redis.call('PTTL', lock)
          if ARGV[a + 3] == '1' or tonumber(ARGV[a + 2]) > before then
            redis.call('PEXPIRE', lock, ARGV[a + 2])
            if tonumber(ARGV[a + 2]) < before then
              redis.call('PUBLISH', KEYS[2 * i], 'shortened')
            end
          end
          reply[i] = 1
        else
          reply[i] = 0
        end
      end
      return reply
      """;

  /**
   * KEYS: lock, channel. ARGV: owner token, fencing token, release id (no spaces), tombstone life
   * in ms, records kept. When the lease is live, removes its fields, records {@code
   * OWNER_TOKEN/RELEASE_ID} in front of the kept records, gives the hash the tombstone life,
   * publishes the fencing token on the channel and returns 1. When this release id already released
   * this owner token's lease (a resend), returns 1 and changes and publishes nothing. Else changes
   * nothing and returns 0.
   */
  static final String RELEASE =
      LuaFunctions.RELEASE_LEASE
          + """
      local released = release_lease(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[5])
      if released == 'now' then
        redis.call('PEXPIRE', KEYS[1], ARGV[4])
        redis.call('PUBLISH', KEYS[2], ARGV[2])
        return 1
      end
      if released then
        return 1
      end
      return 0
      """;

  /**
   * KEYS: lock, channel, abandoned. ARGV: owner token, tombstone life in ms, marks kept ({@link
   * #ABANDONED_MARKS}). The compensation for an acquire whose reply was lost: frees the lock only
   * when it is held by that owner token (which the caller regards as not acquired), keeping earlier
   * release records for the tombstone life, publishes on the channel to wake waiters, and returns
   * 1; else returns 0. Either way it first records the owner token in {@code abandoned} (unless
   * Redis is out of memory), newest first, with the tombstone life, so that a copy of that acquire
   * still on its way (Redisson resends a command whose reply is late, possibly on another
   * connection) is refused when it arrives instead of taking the lock for its whole TTL: {@link
   * #ACQUIRE} and {@link #ACQUIRE_ALL} grant no lock to a token marked there. The marks do not live
   * in the lock's hash, whose life is the TTL of whatever lease holds it.
   */
  static final String RELEASE_ABANDONED =
      LuaFunctions.PREPEND
          + """
      local marks = redis.call('GET', KEYS[3])
      -- Refused by a full Redis (noeviction): the lock is still freed, without the mark.
      redis.pcall('SET', KEYS[3], prepend(ARGV[1], marks, tonumber(ARGV[3])), 'PX', ARGV[2])
      if redis.call('HGET', KEYS[1], 'token') == ARGV[1] then
        redis.call('HDEL', KEYS[1], 'token', 'fence', 'owner')
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        redis.call('PUBLISH', KEYS[2], 'abandoned')
        return 1
      end
      return 0
      """;

  /**
   * KEYS: lock. Read-only. Returns {@code {}} when free (no hash, or a tombstone without {@code
   * fence}), else {@code {fence, owner, pttl}}.
   */
  static final String STATUS =
      """
      local held = redis.call('HMGET', KEYS[1], 'fence', 'owner')
      if not held[1] then
        return {}
      end
      return {held[1], held[2] or '', redis.call('PTTL', KEYS[1])}
      """;
}
