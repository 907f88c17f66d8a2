package dev.locksmith.tcp;

import java.util.ArrayList;
import java.util.List;

/**
 * A line from the server: {@code <id> <KIND> [fields...]}.
 *
 * @param id the request id it answers, or {@code *} for a push
 * @param kind such as {@code OK}, {@code BUSY}, {@code ERR}
 * @param rest everything after the kind, unsplit
 * @param line the whole line, for messages
 * @param arrivedNanos when the line arrived, on the {@link System#nanoTime()} clock
 */
record Reply(String id, String kind, String rest, String line, long arrivedNanos) {

  static Reply parse(String line, long arrivedNanos) {
    int first = line.indexOf(' ');
    if (first < 0) {
      return new Reply(line, "", "", line, arrivedNanos);
    }
    int second = line.indexOf(' ', first + 1);
    String kind = second < 0 ? line.substring(first + 1) : line.substring(first + 1, second);
    String rest = second < 0 ? "" : line.substring(second + 1);
    return new Reply(line.substring(0, first), kind, rest, line, arrivedNanos);
  }

  /** The fields after the kind; the last one takes the rest of the line. */
  List<String> fields(int limit) {
    List<String> fields = new ArrayList<>(limit);
    String remaining = rest;
    while (!remaining.isEmpty() && fields.size() < limit - 1) {
      int space = remaining.indexOf(' ');
      if (space < 0) {
        break;
      }
      fields.add(remaining.substring(0, space));
      remaining = remaining.substring(space + 1);
    }
    if (!remaining.isEmpty()) {
      fields.add(remaining);
    }
    return fields;
  }

  boolean is(String expected) {
    return kind.equals(expected);
  }
}
