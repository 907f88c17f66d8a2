package dev.locksmith.core.spi;

import java.util.List;
import java.util.stream.Collectors;

/**
 * What a provider must know of a lock id's text to keep distinct ids apart: a UTF-16 surrogate that
 * is not half of a pair (a key cut in the middle of an emoji) has no UTF-8 form, and every encoder,
 * UTF-16's included, replaces it with one character ({@code ?} or U+FFFD), which would make
 * different ids one lock. A provider escapes such a unit, or digests the code units themselves.
 *
 * <p>It also says how a message names a lock id: {@link #quoted}, which shortens a long one.
 */
public final class LockIdText {
  /** The longest id {@link #quoted} gives whole. */
  private static final int QUOTED_WHOLE = 200;

  /** How much of a longer id {@link #quoted} gives. */
  private static final int QUOTED_START = 120;

  private LockIdText() {}

  /**
   * A lock id as messages and logs name it: in single quotes, whole up to 200 chars; a longer one
   * (a key built from a whole document, say) is cut after its first 120 chars and followed by its
   * length, so that one call cannot make a message of megabytes. Exceptions keep the whole id in
   * their accessors.
   *
   * @param lockId a lock id
   * @return {@code 'ID'}, or {@code 'START...' (N chars)}
   */
  public static String quoted(String lockId) {
    if (lockId.length() <= QUOTED_WHOLE) {
      return "'" + lockId + "'";
    }
    int end = QUOTED_START;
    if (Character.isHighSurrogate(lockId.charAt(end - 1))) {
      end--;
    }
    return "'" + lockId.substring(0, end) + "...' (" + lockId.length() + " chars)";
  }

  /**
   * Several lock ids as messages name them: {@code ['A', 'B']}, each {@link #quoted(String)}.
   *
   * @param lockIds lock ids
   * @return them in brackets
   */
  public static String quoted(List<String> lockIds) {
    return lockIds.stream().map(LockIdText::quoted).collect(Collectors.joining(", ", "[", "]"));
  }

  /**
   * Whether the char at {@code index} is a surrogate without its other half.
   *
   * @param text a lock id
   * @param index a position in it
   * @return whether that char is a lone surrogate
   */
  public static boolean isLoneSurrogate(CharSequence text, int index) {
    char c = text.charAt(index);
    if (Character.isHighSurrogate(c)) {
      return index + 1 == text.length() || !Character.isLowSurrogate(text.charAt(index + 1));
    }
    return Character.isLowSurrogate(c)
        && (index == 0 || !Character.isHighSurrogate(text.charAt(index - 1)));
  }

  /**
   * Whether {@code text} holds a lone surrogate ({@link #isLoneSurrogate}).
   *
   * @param text a lock id
   * @return whether it has no UTF-8 form
   */
  public static boolean hasLoneSurrogate(CharSequence text) {
    for (int i = 0; i < text.length(); i++) {
      if (isLoneSurrogate(text, i)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The UTF-16 code units of {@code text}, high byte first, lone surrogates included as they are.
   *
   * @param text a lock id
   * @return two bytes per char
   */
  public static byte[] codeUnits(CharSequence text) {
    byte[] units = new byte[2 * text.length()];
    for (int i = 0; i < text.length(); i++) {
      units[2 * i] = (byte) (text.charAt(i) >> 8);
      units[2 * i + 1] = (byte) text.charAt(i);
    }
    return units;
  }
}
