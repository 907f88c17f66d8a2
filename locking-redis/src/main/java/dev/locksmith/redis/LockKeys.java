package dev.locksmith.redis;

/**
 * The Redis names of one lock. All three carry the same hash tag, {@code {LOCK_ID}}, so that Redis
 * Cluster keeps them in one slot and one script can touch them all.
 *
 * @param lock the hash holding the lease ({@code token}, {@code fence}, {@code owner}), with the
 *     lease's TTL
 * @param fence the lock's fencing counter, which lives a minute longer than the last lease granted
 * @param channel the channel a release publishes on, to wake waiters
 */
record LockKeys(String lock, String fence, String channel) {

  /** The names of {@code lockId} under {@code prefix}. */
  static LockKeys of(String prefix, String lockId) {
    String base = prefix + ":{" + escape(lockId) + "}:";
    return new LockKeys(base + "lock", base + "fence", base + "released");
  }

  /**
   * Escapes the characters that would end or empty the hash tag early: {@code %}, <code>{</code>
   * and <code>}</code> become {@code %25}, {@code %7B} and {@code %7D}. Distinct ids stay distinct.
   */
  static String escape(String lockId) {
    if (lockId.indexOf('%') < 0 && lockId.indexOf('{') < 0 && lockId.indexOf('}') < 0) {
      return lockId;
    }
    StringBuilder out = new StringBuilder(lockId.length() + 8);
    for (int i = 0; i < lockId.length(); i++) {
      char c = lockId.charAt(i);
      switch (c) {
        case '%' -> out.append("%25");
        case '{' -> out.append("%7B");
        case '}' -> out.append("%7D");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
