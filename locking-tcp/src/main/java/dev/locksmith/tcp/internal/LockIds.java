package dev.locksmith.tcp.internal;

import dev.locksmith.core.spi.LockIdText;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The wire form of lock ids: percent-encoding of the UTF-8 bytes. Printable ASCII other than {@code
 * %} passes as is; space, {@code %}, control characters and every non-ASCII byte become {@code
 * %XX}; a lone surrogate, which has no UTF-8 form, becomes {@code %u} and its four hex digits. So
 * {@code orders:42} is sent as is and {@code my lock} as {@code my%20lock}. The decoder accepts
 * {@code %XX} for any byte, so {@code a%3Ab} and {@code a:b} name the same lock.
 */
public final class LockIds {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private LockIds() {}

  /**
   * Encodes a lock id for the wire.
   *
   * @param lockId the lock id
   * @return its wire form
   */
  public static String encode(String lockId) {
    StringBuilder out = new StringBuilder(lockId.length() + 8);
    int from = 0;
    for (int i = 0; i < lockId.length(); i++) {
      if (LockIdText.isLoneSurrogate(lockId, i)) {
        // No UTF-8 form (an encoder would make it '?', another id's text): %u and its code unit.
        encodeUtf8(lockId.substring(from, i), out);
        char c = lockId.charAt(i);
        out.append("%u")
            .append(HEX[c >> 12])
            .append(HEX[c >> 8 & 0xF])
            .append(HEX[c >> 4 & 0xF])
            .append(HEX[c & 0xF]);
        from = i + 1;
      }
    }
    encodeUtf8(lockId.substring(from), out);
    return out.toString();
  }

  private static void encodeUtf8(String text, StringBuilder out) {
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xFF;
      if (c > 0x20 && c < 0x7F && c != '%') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
    }
  }

  /**
   * Decodes a lock id from the wire.
   *
   * @param wire a lock id's wire form
   * @return the lock id
   * @throws IllegalArgumentException naming the problem, when an escape is broken, the id is empty
   *     or the bytes are not UTF-8
   */
  public static String decode(String wire) {
    if (wire.isEmpty()) {
      throw new IllegalArgumentException("lock id is empty");
    }
    if (wire.indexOf('%') < 0) {
      return wire;
    }
    StringBuilder id = new StringBuilder(wire.length());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(wire.length());
    for (int i = 0; i < wire.length(); i++) {
      char c = wire.charAt(i);
      if (c == '%' && i + 1 < wire.length() && wire.charAt(i + 1) == 'u') {
        int unit = i + 6 <= wire.length() ? hexUnit(wire, i + 2) : -1;
        if (unit < 0 || !Character.isSurrogate((char) unit)) {
          throw new IllegalArgumentException(
              "lock id has an invalid %u-escape at index " + i + "; %u takes a lone surrogate");
        }
        id.append(utf8(bytes));
        bytes.reset();
        id.append((char) unit);
        i += 5;
      } else if (c == '%') {
        if (i + 2 >= wire.length()) {
          throw new IllegalArgumentException("lock id has a truncated %-escape at index " + i);
        }
        int hi = hexDigit(wire.charAt(i + 1));
        int lo = hexDigit(wire.charAt(i + 2));
        if (hi < 0 || lo < 0) {
          throw new IllegalArgumentException(
              "lock id has an invalid %-escape '" + wire.substring(i, i + 3) + "' at index " + i);
        }
        bytes.write(hi << 4 | lo);
        i += 2;
      } else {
        // a whole code point: a surrogate half on its own would encode as '?'
        int end = i + Character.charCount(wire.codePointAt(i));
        byte[] raw = wire.substring(i, end).getBytes(StandardCharsets.UTF_8);
        bytes.write(raw, 0, raw.length);
        i = end - 1;
      }
    }
    // Two %u-escapes that make a pair name the code point, as its UTF-8 bytes do.
    return id.append(utf8(bytes)).toString();
  }

  private static String utf8(ByteArrayOutputStream bytes) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("lock id's %-escapes are not valid UTF-8", e);
    }
  }

  /** The value of four ASCII hex digits at {@code at}, or -1. */
  private static int hexUnit(String wire, int at) {
    int unit = 0;
    for (int k = at; k < at + 4; k++) {
      int digit = hexDigit(wire.charAt(k));
      if (digit < 0) {
        return -1;
      }
      unit = unit << 4 | digit;
    }
    return unit;
  }

  /** The value of an ASCII hex digit, or -1 (Character.digit would take other scripts' digits). */
  private static int hexDigit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }
}
