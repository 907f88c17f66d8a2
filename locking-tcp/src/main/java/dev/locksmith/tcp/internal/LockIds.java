package dev.locksmith.tcp.internal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The wire form of lock ids: percent-encoding of the UTF-8 bytes. Printable ASCII other than {@code
 * %} passes as is; space, {@code %}, control characters and every non-ASCII byte become {@code
 * %XX}. So {@code orders:42} is sent as is and {@code my lock} as {@code my%20lock}. The decoder
 * accepts {@code %XX} for any byte, so {@code a%3Ab} and {@code a:b} name the same lock.
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
    byte[] bytes = lockId.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(bytes.length + 8);
    for (byte b : bytes) {
      int c = b & 0xFF;
      if (c > 0x20 && c < 0x7F && c != '%') {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
    }
    return out.toString();
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
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(wire.length());
    for (int i = 0; i < wire.length(); i++) {
      char c = wire.charAt(i);
      if (c == '%') {
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
