package dev.locksmith.jdbc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Maps lock ids onto the {@code lock_id} column, 255 bytes wide: an id of at most 255 bytes in
 * UTF-8 is stored as it is; a longer one as {@code sha256:} and the hex digest of its UTF-8 bytes.
 * Owner descriptions are cut to 255 characters.
 */
final class LockIds {
  static final int MAX_BYTES = 255;

  private LockIds() {}

  static String stored(String lockId) {
    byte[] bytes = lockId.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= MAX_BYTES) {
      return lockId;
    }
    try {
      return "sha256:"
          + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
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
