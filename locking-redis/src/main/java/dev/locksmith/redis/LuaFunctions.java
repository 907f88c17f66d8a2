package dev.locksmith.redis;

/**
 * The Lua functions the {@link LuaScripts} share: each constant is the source of {@code local
 * function} definitions that a script puts in front of its own body, and one that calls another
 * function begins with that function's source.
 */
final class LuaFunctions {
  private LuaFunctions() {}

  /**
   * The Lua function that keeps the bounded, space-separated lists of a lock's hash. {@code
   * prepend(item, list, limit)} returns {@code item} in front of the newest {@code limit - 1} items
   * of {@code list} (which may be {@code false}: no list yet).
   */
  static final String PREPEND =
      """
      local function prepend(item, list, limit)
        if not list or limit <= 1 then
          return item
        end
        local cut = 0
        for _ = 1, limit - 1 do
          cut = string.find(list, ' ', cut + 1, true)
          if not cut then
            return item .. ' ' .. list
          end
        end
        return item .. ' ' .. string.sub(list, 1, cut - 1)
      end
      """;

  /**
   * The Lua function {@link LuaScripts#ACQUIRE} and {@link LuaScripts#ACQUIRE_ALL} check before
   * they grant. {@code given_up(key, records, token)}: whether owner token {@code token} is done
   * with the lock, so that a copy of its acquire still on its way must not take it: the release
   * {@code records} of the lock's hash ({@code false} when none) name it (its lease was released),
   * or the marks in {@code key} (a space-separated list, or no key) name it (its acquire was
   * compensated).
   */
  static final String GIVEN_UP =
      """
      local function given_up(key, records, token)
        if records and string.find(' ' .. records, ' ' .. token .. '/', 1, true) then
          return true
        end
        local marks = redis.call('GET', key)
        return marks and string.find(' ' .. marks .. ' ', ' ' .. token .. ' ', 1, true)
      end
      """;

  /**
   * The Lua function {@link LuaScripts#ACQUIRE} and {@link LuaScripts#RELEASE} begin with. {@code
   * release_check(lock, token, fence, id, limit)} reads {@code lock} and writes nothing: when it is
   * held by owner token {@code token} with fencing token {@code fence}, returns {@code 'now'} and
   * the records to keep once it is released ({@code TOKEN/ID} in front of the newest {@code limit -
   * 1} kept records); when that record is already kept (the release ran before), returns {@code
   * 'before'}; else {@code false}. Its third result is what it read of the lock: {@code token},
   * {@code fence} and {@code released}.
   */
  static final String RELEASE_CHECK =
      PREPEND
          + """
      local function release_check(lock, token, fence, id, limit)
        local held = redis.call('HMGET', lock, 'token', 'fence', 'released')
        local record = token .. '/' .. id
        if held[1] == token and held[2] == fence then
          return 'now', prepend(record, held[3], tonumber(limit)), held
        end
        if held[3] and string.find(' ' .. held[3] .. ' ', ' ' .. record .. ' ', 1, true) then
          return 'before', nil, held
        end
        return false, nil, held
      end
      """;

  /**
   * {@link #RELEASE_CHECK} and the function {@link LuaScripts#RELEASE} runs. {@code
   * release_lease(lock, token, fence, id, limit)}: when {@code release_check} says {@code 'now'},
   * removes the lease's fields and writes the records, unless Redis is out of memory (the release
   * is done then, without its record); returns what {@code release_check} said.
   */
  static final String RELEASE_LEASE =
      RELEASE_CHECK
          + """
      local function release_lease(lock, token, fence, id, limit)
        local outcome, records = release_check(lock, token, fence, id, limit)
        if outcome == 'now' then
          redis.call('HDEL', lock, 'token', 'fence', 'owner')
          -- A full Redis (noeviction) refuses the write, not the HDEL: the lock is freed, with no
          -- record to answer a resend of this release.
          redis.pcall('HSET', lock, 'released', records)
        end
        return outcome
      end
      """;

  /**
   * The Lua functions {@link LuaScripts#ACQUIRE} and {@link LuaScripts#ACQUIRE_ALL} begin with.
   * {@code clock_micros()} switches the script to effects replication (where the server needs it)
   * and returns the server clock in microseconds. {@code grant(lock, counter, floor, token, ttl,
   * owner, life, records)} takes the next fencing token from {@code counter} (its value plus one,
   * at least {@code floor}), stores it there for {@code life} ms, writes {@code token}, the fencing
   * token, {@code owner} and, when given, the release {@code records} into {@code lock} with {@code
   * ttl} ms, and returns the fencing token. Four commands (and {@code TIME}): each command a script
   * runs costs the server far more than the command alone, and a grant is on the path of every
   * acquire.
   */
  static final String GRANT =
      """
      local function clock_micros()
        if redis.replicate_commands then
          pcall(redis.replicate_commands)
        end
        local now = redis.call('TIME')
        return tonumber(now[1]) * 1000000 + tonumber(now[2])
      end
      local function grant(lock, counter, floor, token, ttl, owner, life, records)
        local fence = tonumber(redis.call('GET', counter) or 0) + 1
        if fence < floor then
          fence = floor
        end
        local value = string.format('%.0f', fence)
        redis.call('SET', counter, value, 'PX', life)
        if records then
          redis.call('HSET', lock, 'token', token, 'fence', value, 'owner', owner,
            'released', records)
        else
          redis.call('HSET', lock, 'token', token, 'fence', value, 'owner', owner)
        end
        redis.call('PEXPIRE', lock, ttl)
        return fence
      end
      """;
}
