package dev.locksmith.zookeeper;

import dev.locksmith.core.spi.LockIdText;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

/**
 * Where leases live: {@code <base>/locks/<encoded lock id>/<lease nodes>}. A lock id becomes one
 * node name: letters, digits, {@code - . _ :} stay, every other byte of its UTF-8 form becomes
 * {@code %XX} (a lone surrogate, which has none, {@code %uXXXX}); names longer than 200 characters
 * become {@code sha256-} and the digest of the id's UTF-8 form ({@code sha256u-} and its UTF-16
 * form for an id with a lone surrogate; a short name that starts with either prefix has its first
 * letter escaped). Lease nodes end in ZooKeeper's sequence number, which orders the queue.
 */
final class LockPaths {
  private static final int MAX_NAME = 200;
  private static final int SEQUENCE_DIGITS = 10;

  /** The lease node's name before its protection prefix and sequence number. */
  static final String LEASE = "lease-";

  private static final String HASHED = "sha256";
  private static final String HASHED_UTF8 = HASHED + "-";
  private static final String HASHED_UTF16 = HASHED + "u-";

  /**
   * Orders lease node names by their sequence number: ZooKeeper's signed counter of the parent's
   * child creates, compared as serial numbers, so the order holds across its wrap from {@code
   * 2147483647} to {@code -2147483648} while the queue spans less than 2^31 creates.
   */
  static final Comparator<String> BY_SEQUENCE = (a, b) -> Integer.signum(sequence(a) - sequence(b));

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
    for (int i = 0; i < lockId.length(); i++) {
      char c = lockId.charAt(i);
      if ((c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '_'
          || c == ':'
          || (c == '.' && name.length() > 0)) {
        name.append(c);
      } else if (LockIdText.isLoneSurrogate(lockId, i)) {
        // A lone surrogate has no UTF-8 form (it would become '?', the name of another id): %u and
        // its four hex digits, which no %XX escape can look like.
        name.append("%u").append(HexFormat.of().withUpperCase().toHexDigits(c));
      } else if (Character.isHighSurrogate(c)) {
        escapeUtf8(lockId.substring(i, i + 2), name); // with its low half
        i++;
      } else {
        escapeUtf8(String.valueOf(c), name);
      }
    }
    if (name.length() <= MAX_NAME) {
      // A short id that looks like a long id's digest has its first letter escaped, so that it
      // never names the long id's lock.
      String text = name.toString();
      return text.startsWith(HASHED_UTF8) || text.startsWith(HASHED_UTF16)
          ? "%73" + text.substring(1)
          : text;
    }
    boolean lone = name.indexOf("%u") >= 0;
    try {
      // A lone surrogate has no UTF-8 form: such an id is digested as UTF-16, under a name of its
      // own (other ids keep the UTF-8 digest they always had).
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(
                  lone ? LockIdText.codeUnits(lockId) : lockId.getBytes(StandardCharsets.UTF_8));
      return (lone ? HASHED_UTF16 : HASHED_UTF8) + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  private static void escapeUtf8(String text, StringBuilder name) {
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      name.append('%').append(HexFormat.of().withUpperCase().toHexDigits(b));
    }
  }

  /** The lease nodes among {@code children}, lowest sequence first. */
  static List<String> queue(List<String> children) {
    return children.stream().filter(LockPaths::isLease).sorted(BY_SEQUENCE).toList();
  }

  static boolean isLease(String child) {
    int at = child.lastIndexOf(LEASE);
    if (at < 0) {
      return false;
    }
    // %010d of a signed int: ten characters with the sign, eleven for the lowest values.
    String number = child.substring(at + LEASE.length());
    String digits = number.startsWith("-") ? number.substring(1) : number;
    return number.length() >= SEQUENCE_DIGITS
        && !digits.isEmpty()
        && digits.length() <= SEQUENCE_DIGITS
        && digits.chars().allMatch(c -> c >= '0' && c <= '9');
  }

  /** The node name's sequence number: {@code %010d} of a signed int, after {@value #LEASE}. */
  static int sequence(String child) {
    return (int) Long.parseLong(child.substring(child.lastIndexOf(LEASE) + LEASE.length()));
  }

  /** The last element of a path. */
  static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
