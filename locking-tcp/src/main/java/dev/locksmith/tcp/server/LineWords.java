package dev.locksmith.tcp.server;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.jspecify.annotations.Nullable;

/**
 * The words of a request line and what each kind may hold: request ids, owner tokens, numbers.
 * Words are separated by runs of blanks (spaces or tabs).
 */
final class LineWords {
  private LineWords() {}

  /** Splits on runs of blanks into at most {@code limit} words. */
  static List<String> split(String line, int limit) {
    List<String> words = new ArrayList<>(limit);
    int i = 0;
    int n = line.length();
    while (i < n && words.size() < limit) {
      while (i < n && isBlank(line.charAt(i))) {
        i++;
      }
      int start = i;
      while (i < n && !isBlank(line.charAt(i))) {
        i++;
      }
      if (i > start) {
        words.add(line.substring(start, i));
      }
    }
    return words;
  }

  /** The text after the first {@code skip} words, stripped. */
  static String rest(String line, int skip) {
    int i = 0;
    int n = line.length();
    for (int w = 0; w < skip; w++) {
      while (i < n && isBlank(line.charAt(i))) {
        i++;
      }
      while (i < n && !isBlank(line.charAt(i))) {
        i++;
      }
    }
    return line.substring(i).strip();
  }

  /**
   * The request id {@code line} starts with (its text up to the first space or tab), or {@code
   * null} when that is not a valid id: what a reply to a line rejected as a whole still names.
   */
  static @Nullable String leadingId(String line) {
    int end = 0;
    while (end < line.length() && line.charAt(end) != ' ' && line.charAt(end) != '\t') {
      end++;
    }
    String id = line.substring(0, end);
    return isId(id) ? id : null;
  }

  /** {@code [A-Za-z0-9_.:-]{1,32}}. */
  static boolean isId(String id) {
    return isRun(
        id,
        32,
        c ->
            c >= 'a' && c <= 'z'
                || c >= 'A' && c <= 'Z'
                || c >= '0' && c <= '9'
                || c == '_'
                || c == '.'
                || c == ':'
                || c == '-');
  }

  /** 1 to 128 printable ASCII characters other than space. */
  static boolean isToken(String token) {
    return isRun(token, 128, c -> c >= 0x21 && c <= 0x7E);
  }

  /** 1 to 13 decimal digits. */
  static boolean isDigits(String value) {
    return isRun(value, 13, c -> c >= '0' && c <= '9');
  }

  /** Whether {@code text} is 1 to {@code maxLength} characters, each one {@code allowed}. */
  private static boolean isRun(String text, int maxLength, IntPredicate allowed) {
    int n = text.length();
    if (n < 1 || n > maxLength) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (!allowed.test(text.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isBlank(char c) {
    return c == ' ' || c == '\t';
  }

  static String abbreviate(String text) {
    return text.length() <= 40 ? text : text.substring(0, 40) + "...";
  }
}
