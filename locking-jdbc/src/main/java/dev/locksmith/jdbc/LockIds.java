package dev.locksmith.jdbc;

import dev.locksmith.core.spi.LockIdText;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Maps lock ids onto the {@code lock_id} column, 255 bytes wide: an id of at most 255 bytes in
 * UTF-8 is stored as it is; a longer one as {@code sha256:} and the hex digest of its UTF-8 bytes;
 * one with a NUL or a lone surrogate, which the column cannot hold as it is, as {@code
 * sha256-utf16:} and the digest of its UTF-16 code units; one that starts with either prefix as
 * {@code sha256:} and its digest, so that no id names the row of another. Owner descriptions are
 * cut to 255 characters.
 */
final class LockIds {
  static final int MAX_BYTES = 255;
  private static final String DIGEST = "sha256:";
  private static final String DIGEST_UTF16 = "sha256-utf16:";

  private LockIds() {}

  static String stored(String lockId) {
    if (!storableAsIs(lockId)) {
      // The code units themselves: an encoder would turn every lone surrogate into one character.
      return digest(DIGEST_UTF16, LockIdText.codeUnits(lockId));
    }
    byte[] bytes = lockId.getBytes(StandardCharsets.UTF_8);
    // An id that starts like a digest is digested too, so that it never names another id's row.
    return bytes.length <= MAX_BYTES
            && !lockId.startsWith(DIGEST)
            && !lockId.startsWith(DIGEST_UTF16)
        ? lockId
        : digest(DIGEST, bytes);
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
    return lockId.indexOf('\u0000') < 0 && !LockIdText.hasLoneSurrogate(lockId);
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
