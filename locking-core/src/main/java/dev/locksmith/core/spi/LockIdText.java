package dev.locksmith.core.spi;

/**
 * What a provider must know of a lock id's text to keep distinct ids apart: a UTF-16 surrogate that
 * is not half of a pair (a key cut in the middle of an emoji) has no UTF-8 form, and every encoder,
 * UTF-16's included, replaces it with one character ({@code ?} or U+FFFD), which would make
 * different ids one lock. A provider escapes such a unit, or digests the code units themselves.
 */
public final class LockIdText {
  private LockIdText() {}

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
