package dev.locksmith.tcp.server;

/**
 * Owner tokens of the usual form, 24 lowercase hex digits, a {@code -} and a hex sequence number
 * (what the Java client and the server itself make), kept as the shared 25-character head plus the
 * number: a held lease then costs 8 bytes for its token instead of a string of its own. Any other
 * token is kept whole.
 */
final class CompactToken {
  /** Length of the head: 24 hex digits and the dash. */
  static final int HEAD = 25;

  private CompactToken() {}

  /**
   * Whether {@code token} has the usual form and its number is written as {@link
   * Long#toHexString(long)} writes it (no leading zeros), so that it can be rebuilt exactly.
   */
  static boolean fits(String token) {
    int length = token.length();
    if (length <= HEAD || length > HEAD + 16 || token.charAt(HEAD - 1) != '-') {
      return false;
    }
    for (int i = 0; i < HEAD - 1; i++) {
      if (!isHex(token.charAt(i))) {
        return false;
      }
    }
    if (token.charAt(HEAD) == '0' && length > HEAD + 1) {
      return false;
    }
    for (int i = HEAD; i < length; i++) {
      if (!isHex(token.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** The sequence number of a token that {@link #fits}. */
  static long seq(String token) {
    long value = 0;
    for (int i = HEAD; i < token.length(); i++) {
      value = value << 4 | Character.digit(token.charAt(i), 16);
    }
    return value;
  }

  /** Whether {@code token} is the token with this head and number. */
  static boolean matches(String head, long seq, String token) {
    return fits(token) && token.regionMatches(0, head, 0, HEAD) && seq(token) == seq;
  }

  /** The token rebuilt from its head and number. */
  static String toString(String head, long seq) {
    return head + Long.toHexString(seq);
  }

  private static boolean isHex(char c) {
    return c >= '0' && c <= '9' || c >= 'a' && c <= 'f';
  }
}
