package dev.locksmith.zookeeper;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

/**
 * Where leases live: {@code <base>/locks/<encoded lock id>/<lease nodes>}. A lock id becomes one
 * node name: letters, digits, {@code - . _ :} stay, every other byte of its UTF-8 form becomes
 * {@code %XX}; names longer than 200 characters become {@code sha256-} and the id's digest. Lease
 * nodes end in ZooKeeper's ten-digit sequence number, which orders the queue.
 */
final class LockPaths {
  private static final int MAX_NAME = 200;
  private static final int SEQUENCE_DIGITS = 10;

  /** The lease node's name before its protection prefix and sequence number. */
  static final String LEASE = "lease-";

  /** Orders lease node names by their sequence number. */
  static final Comparator<String> BY_SEQUENCE = Comparator.comparing(LockPaths::sequence);

  private final String locks;

  LockPaths(String basePath) {
    this.locks = (basePath.equals("/") ? "" : basePath) + "/locks";
  }

  /** The parent of every lock's node. */
  String locks() {
    return locks;
  }

  /** The node whose children are {@code lockId}'s queue. */
  String lock(String lockId) {
    return locks + "/" + nodeName(lockId);
  }

  /** The path of the lease node {@code child} of {@code lockId}. */
  String lease(String lockId, String child) {
    return lock(lockId) + "/" + child;
  }

  /** The node name for a lock id. */
  static String nodeName(String lockId) {
    StringBuilder name = new StringBuilder();
    for (byte b : lockId.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '_'
          || c == ':'
          || (c == '.' && name.length() > 0)) {
        name.append(c);
      } else {
        name.append('%').append(HexFormat.of().withUpperCase().toHexDigits(b));
      }
    }
    if (name.length() <= MAX_NAME) {
      return name.toString();
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(lockId.getBytes(StandardCharsets.UTF_8));
      return "sha256-" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** The lease nodes among {@code children}, lowest sequence first. */
  static List<String> queue(List<String> children) {
    return children.stream().filter(LockPaths::isLease).sorted(BY_SEQUENCE).toList();
  }

  static boolean isLease(String child) {
    return child.contains(LEASE) && child.length() > SEQUENCE_DIGITS;
  }

  /** The node name's sequence number, as text of ten digits. */
  static String sequence(String child) {
    return child.substring(child.length() - SEQUENCE_DIGITS);
  }

  /** The last element of a path. */
  static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
