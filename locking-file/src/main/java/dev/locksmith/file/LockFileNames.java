package dev.locksmith.file;

import dev.locksmith.core.spi.LockIdText;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Maps a lock id to the files of that lock in the directory.
 *
 * <p>A file's base name is a readable prefix of the id (letters, digits, {@code _} and {@code -}
 * kept, every other character replaced by {@code _}, at most {@value #READABLE_MAX} characters)
 * followed by {@code -} and the first 16 hex digits of the SHA-256 of the id's UTF-8 bytes (of
 * {@link #idBytes} for an id with a lone surrogate, which has no UTF-8 form). The hash keeps
 * distinct ids apart even where the readable prefixes collide (case-insensitive file systems,
 * replaced characters, truncated long keys); no name contains a separator, a dot prefix or a
 * reserved character, so no id can reach outside the directory. The original id is kept inside the
 * lock file and checked on every read.
 */
final class LockFileNames {
  static final int READABLE_MAX = 48;
  static final String LOCK_SUFFIX = ".lock";
  static final String FENCE_SUFFIX = ".fence";
  static final String TAKEN_SUFFIX = ".taken";
  static final String PRUNED_SUFFIX = ".pruned";
  private static final MessageDigest SHA256 = sha256();

  private LockFileNames() {}

  /** The base name for a lock id, such as {@code orders_42-1f2e3d4c5b6a7988}. */
  static String baseName(String lockId) {
    StringBuilder readable = new StringBuilder(Math.min(lockId.length(), READABLE_MAX));
    for (int i = 0; i < lockId.length() && readable.length() < READABLE_MAX; i++) {
      char c = lockId.charAt(i);
      boolean safe =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
      readable.append(safe ? c : '_');
    }
    return readable + "-" + sha256Hex(idBytes(lockId)).substring(0, 16);
  }

  /**
   * The bytes a lock id's name is digested from: its UTF-8 form, or, for an id with a lone
   * surrogate, which has none (UTF-8 would make it '?', another id's text), its UTF-16 code units
   * after the bytes FF FE, which no UTF-8 form holds.
   */
  static byte[] idBytes(String lockId) {
    if (!LockIdText.hasLoneSurrogate(lockId)) {
      return lockId.getBytes(StandardCharsets.UTF_8);
    }
    byte[] units = LockIdText.codeUnits(lockId);
    byte[] marked = new byte[units.length + 2];
    marked[0] = (byte) 0xFF; // never in UTF-8
    marked[1] = (byte) 0xFE;
    System.arraycopy(units, 0, marked, 2, units.length);
    return marked;
  }

  /** The files of one lock in a directory. */
  static LockFiles of(Path directory, String lockId) {
    return new LockFiles(directory, baseName(lockId));
  }

  static String sha256Hex(String text) {
    return sha256Hex(text.getBytes(StandardCharsets.UTF_8));
  }

  static String sha256Hex(byte[] bytes) {
    return HexFormat.of().formatHex(newSha256().digest(bytes));
  }

  /** A fresh SHA-256 digest, cloned from a prototype (a provider look-up per call costs more). */
  private static MessageDigest newSha256() {
    try {
      return (MessageDigest) SHA256.clone();
    } catch (CloneNotSupportedException e) {
      return sha256();
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /**
   * The paths of one lock: the lock file, the fencing counter, and unique names for temporary
   * files, tombs (moved-away lock files), take-over claims, and counter files taken away to be
   * replaced or pruned.
   */
  record LockFiles(Path directory, String base) {
    Path lock() {
      return directory.resolve(base + LOCK_SUFFIX);
    }

    Path fence() {
      return directory.resolve(base + FENCE_SUFFIX);
    }

    Path temp(String unique) {
      return directory.resolve(base + "." + unique + ".tmp");
    }

    Path tomb(String unique) {
      return directory.resolve(base + "." + unique + ".tomb");
    }

    Path claim(String staleIdentity, int generation) {
      return directory.resolve(
          base + "." + sha256Hex(staleIdentity).substring(0, 16) + "." + generation + ".claim");
    }

    /** A unique name for a counter file taken away to be replaced. */
    Path taken(String unique) {
      return directory.resolve(base + "." + unique + TAKEN_SUFFIX);
    }

    /**
     * Where the stealer holding claim {@code generation} on a stale incarnation puts the counter it
     * takes away, so that the next generation finds it if that stealer stops half-way.
     */
    Path taken(String staleIdentity, int generation) {
      return directory.resolve(
          base + "." + sha256Hex(staleIdentity).substring(0, 16) + "." + generation + TAKEN_SUFFIX);
    }

    /**
     * Where an acquisition holding owner token {@code ownerToken} puts the counter it takes away in
     * its slow path, so that the take-over of its lock file finds it if it dies half-way.
     */
    Path takenBy(String ownerToken) {
      return directory.resolve(
          base + "." + sha256Hex(ownerToken).substring(0, 16) + ".o" + TAKEN_SUFFIX);
    }

    /** A unique name for a counter file taken away by {@link FileLockMaintenance#prune}. */
    Path pruned(String unique) {
      return directory.resolve(base + "." + unique + PRUNED_SUFFIX);
    }
  }
}
