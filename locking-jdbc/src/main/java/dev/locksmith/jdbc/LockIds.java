package dev.locksmith.jdbc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Maps lock ids onto the {@code lock_id} column, 255 bytes wide: an id of at most 255 bytes in
 * UTF-8 is stored as it is; a longer one as {@code sha256:} and the hex digest of its UTF-8 bytes;
 * one with a NUL or a lone surrogate, which the column cannot hold as it is, as {@code
 * sha256-utf16:} and the digest of its UTF-16 code units. Owner descriptions are cut to 255
 * characters.
 */
final class LockIds {
  static final int MAX_BYTES = 255;

  private LockIds() {}

  static String stored(String lockId) {
    if (!storableAsIs(lockId)) {
      // The code units themselves: an encoder would turn every lone surrogate into one character.
      ByteBuffer units = ByteBuffer.allocate(lockId.length() * 2);
      units.asCharBuffer().put(lockId);
      return digest("sha256-utf16:", units.array());
    }
    byte[] bytes = lockId.getBytes(StandardCharsets.UTF_8);
    return bytes.length <= MAX_BYTES ? lockId : digest("sha256:", bytes);
  }

  private static String digest(String prefix, byte[] bytes) {
    try {
      return prefix + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /**
   * Whether the column can hold the id as it is: PostgreSQL's text refuses NUL, and UTF-8 turns
   * every lone surrogate into the same {@code '?'}, which would make different ids one lock.
   */
  private static boolean storableAsIs(String lockId) {
    for (int i = 0; i < lockId.length(); i++) {
      char c = lockId.charAt(i);
      if (c == '\u0000') {
        return false;
      }
      if (Character.isHighSurrogate(c)
          && i + 1 < lockId.length()
          && Character.isLowSurrogate(lockId.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  static String owner(String owner) {
    return owner.length() <= 255 ? owner : owner.substring(0, 255);
  }

  /** A TTL in whole microseconds, rounded up, so the database's lease is never the shorter. */
  static long micros(java.time.Duration ttl) {
    long nanos = ttl.toNanos();
    return nanos / 1000 + (nanos % 1000 == 0 ? 0 : 1);
  }
}
