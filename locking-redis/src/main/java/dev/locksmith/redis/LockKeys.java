package dev.locksmith.redis;

import dev.locksmith.core.spi.LockIdText;
import java.util.HexFormat;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The Redis names of one lock. All four carry the same hash tag, so that Redis Cluster keeps them
 * in one slot and one script can touch them all: {@code {LOCK_ID}} ({@code PREFIX:{LOCK_ID}:lock}),
 * or, when the lock id has a hash tag of its own (a non-empty part between its first <code>{</code>
 * and the first <code>}</code> after it, Redis's rule), that tag ({@code
 * PREFIX:{TAG}:LOCK_ID:lock}), so that locks whose ids share a tag, such as {@code account:{eu}:42}
 * and {@code account:{eu}:43}, share a slot and can be taken by one script.
 *
 * @param lock the hash holding the lease ({@code token}, {@code fence}, {@code owner}), with the
 *     lease's TTL
 * @param fence the lock's fencing counter, which lives a minute longer than the last lease granted
 * @param channel the channel a release publishes on, to wake waiters
 * @param abandoned the owner tokens of acquires whose reply was lost and that were compensated,
 *     which acquire refuses; it lives a minute after the last compensation, whatever leases come
 *     and go meanwhile
 */
record LockKeys(String lock, String fence, String channel, String abandoned) {

  /**
   * The names of {@code lockId} under {@code prefix}. The lock id is escaped ({@link #escape}) in
   * both forms, so distinct ids get distinct names: an id without a tag of its own has no braces
   * once escaped, while one with a tag has an escaped brace after the tag.
   */
  static LockKeys of(String prefix, String lockId) {
    String tag = hashTag(lockId);
    String base =
        tag == null
            ? prefix + ":{" + escape(lockId) + "}:"
            : prefix + ":{" + tag + "}:" + escape(lockId) + ":";
    return new LockKeys(base + "lock", base + "fence", base + "released", base + "abandoned");
  }

  /**
   * The keys {@link LuaScripts#ACQUIRE} is run with, in its order; {@link LuaScripts#ACQUIRE_ALL}
   * takes them for each lock.
   */
  List<Object> forAcquire() {
    return List.of(lock, fence, abandoned);
  }

  /**
   * The keys {@link LuaScripts#RENEW} is run with, in its order; {@link LuaScripts#RENEW_ALL} takes
   * them for each lock.
   */
  List<Object> forRenew() {
    return List.of(lock, channel);
  }

  /** The keys {@link LuaScripts#RELEASE} is run with, in its order. */
  List<Object> forRelease() {
    return List.of(lock, channel);
  }

  /** The keys {@link LuaScripts#RELEASE_ABANDONED} is run with, in its order. */
  List<Object> forCompensation() {
    return List.of(lock, channel, abandoned);
  }

  /**
   * The hash tag of {@code lockId} by Redis's rule: the part between the first <code>{</code> and
   * the first <code>}</code> after it, or null when there is none or it is empty.
   */
  static @Nullable String hashTag(String lockId) {
    int open = lockId.indexOf('{');
    if (open < 0) {
      return null;
    }
    int close = lockId.indexOf('}', open + 1);
    return close > open + 1 ? lockId.substring(open + 1, close) : null;
  }

  /**
   * Escapes the characters that would end or empty the hash tag early: {@code %}, <code>{</code>
   * and <code>}</code> become {@code %25}, {@code %7B} and {@code %7D}; a lone surrogate, which has
   * no UTF-8 form (Redisson would write {@code ?}, another id's name), becomes {@code %u} and its
   * four hex digits. Distinct ids stay distinct.
   */
  static String escape(String lockId) {
    StringBuilder out = null;
    for (int i = 0; i < lockId.length(); i++) {
      char c = lockId.charAt(i);
      String escaped =
          switch (c) {
            case '%' -> "%25";
            case '{' -> "%7B";
            case '}' -> "%7D";
            default ->
                LockIdText.isLoneSurrogate(lockId, i)
                    ? "%u" + HexFormat.of().withUpperCase().toHexDigits(c)
                    : null;
          };
      if (escaped != null && out == null) {
        out = new StringBuilder(lockId.length() + 8).append(lockId, 0, i);
      }
      if (out != null) {
        if (escaped != null) {
          out.append(escaped);
        } else {
          out.append(c);
        }
      }
    }
    return out == null ? lockId : out.toString();
  }
}
