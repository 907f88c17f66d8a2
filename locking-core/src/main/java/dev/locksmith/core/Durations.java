package dev.locksmith.core;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses durations as the annotation takes them: {@code 500ms}, {@code 10s}, {@code 5m}, {@code
 * 1h}, {@code 1d}, or ISO-8601 such as {@code PT10S}, from zero up to {@link #MAX}, in whole
 * milliseconds.
 */
public final class Durations {
  /**
   * The longest duration Locksmith accepts anywhere (ttl, wait, minimum hold): 365 days. Longer
   * leases are a mistake rather than a need, and the bound keeps every deadline computed from a
   * duration (nanoseconds on the monotonic clock, milliseconds on the wire) far from overflow.
   */
  public static final Duration MAX = Duration.ofDays(365);

  /**
   * The shortest ttl the engine takes, 1 ms: one below it could not be told in the milliseconds
   * that deadlines, messages and most stores count in.
   */
  static final Duration MIN_TTL = Duration.ofMillis(1);

  private static final Pattern SIMPLE = Pattern.compile("(-?)(\\d+)\\s*(ms|s|m|h|d)");

  private Durations() {}

  /**
   * Parses a duration.
   *
   * @param text such as {@code 500ms}, {@code 10s} or {@code PT10S}
   * @return the duration
   * @throws IllegalArgumentException naming the text and the accepted forms, when it is neither
   *     form, is negative, is longer than {@link #MAX} or has a part under a millisecond
   */
  public static Duration parse(String text) {
    String value = text.strip().toLowerCase(Locale.ROOT);
    Matcher matcher = SIMPLE.matcher(value);
    Duration result;
    if (matcher.matches()) {
      if (!matcher.group(1).isEmpty()) {
        throw negative(text);
      }
      long amount;
      try {
        amount = Long.parseLong(matcher.group(2));
      } catch (NumberFormatException e) {
        throw tooLong(text); // only digits: too many of them for a long
      }
      try {
        result =
            switch (matcher.group(3)) {
              case "ms" -> Duration.ofMillis(amount);
              case "s" -> Duration.ofSeconds(amount);
              case "m" -> Duration.ofMinutes(amount);
              case "h" -> Duration.ofHours(amount);
              default -> Duration.ofDays(amount);
            };
      } catch (ArithmeticException e) {
        throw tooLong(text);
      }
    } else if (value.startsWith("p") || value.startsWith("-p")) {
      try {
        result = Duration.parse(value.toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw e.getCause() instanceof ArithmeticException ? tooLong(text) : invalid(text);
      }
    } else {
      throw invalid(text);
    }
    if (result.isNegative()) {
      throw negative(text);
    }
    if (result.compareTo(MAX) > 0) {
      throw tooLong(text);
    }
    if (result.getNano() % 1_000_000 != 0) {
      throw new IllegalArgumentException(
          "duration '"
              + text
              + "' has a part under a millisecond; Locksmith counts durations in whole"
              + " milliseconds");
    }
    return result;
  }

  /**
   * Checks a duration given as a {@link Duration} against the same bounds as parsed text.
   *
   * @param duration the duration
   * @param what what the duration is, for the message, such as {@code "ttl"}
   * @return the duration
   * @throws IllegalArgumentException naming {@code what} when it is negative or over {@link #MAX}
   */
  public static Duration check(Duration duration, String what) {
    if (duration.isNegative()) {
      throw new IllegalArgumentException(what + " must not be negative, was " + duration);
    }
    if (duration.compareTo(MAX) > 0) {
      throw new IllegalArgumentException(
          what + " " + duration + " is longer than the longest Locksmith accepts, 365d");
    }
    return duration;
  }

  private static IllegalArgumentException negative(String text) {
    return new IllegalArgumentException("duration '" + text + "' is negative");
  }

  private static IllegalArgumentException tooLong(String text) {
    return new IllegalArgumentException(
        "'" + text.strip() + "' is longer than the longest duration Locksmith accepts, 365d");
  }

  /**
   * Formats a duration the short way this class parses, such as {@code 1500ms} or {@code 30s}, in
   * whole milliseconds (a positive one under 1ms in ISO-8601).
   *
   * @param duration the duration
   * @return its short form
   */
  public static String format(Duration duration) {
    if (duration.getSeconds() == 0 && duration.getNano() > 0 && duration.getNano() < 1_000_000) {
      return duration.toString(); // ISO-8601: the short forms have no unit under 1ms, not 0s
    }
    long millis = duration.toMillis();
    if (millis % 1000 != 0) {
      return millis + "ms";
    }
    long seconds = millis / 1000;
    if (seconds % 86_400 == 0 && seconds != 0) {
      return seconds / 86_400 + "d";
    }
    if (seconds % 3600 == 0 && seconds != 0) {
      return seconds / 3600 + "h";
    }
    if (seconds % 60 == 0 && seconds != 0) {
      return seconds / 60 + "m";
    }
    return seconds + "s";
  }

  private static IllegalArgumentException invalid(String text) {
    return new IllegalArgumentException(
        "'"
            + text
            + "' is not a duration; use a whole number with ms, s, m, h or d"
            + " (500ms, 10s, 5m) or ISO-8601 (PT10S)");
  }
}
