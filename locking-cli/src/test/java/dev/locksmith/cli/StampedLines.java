package dev.locksmith.cli;

import java.io.Writer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A writer that keeps each line with the moment it was completed, for stderr in tests. */
final class StampedLines extends Writer {
  /**
   * A line and when its newline was written.
   *
   * @param text the line, without its newline
   * @param epochNanos wall-clock time, comparable with {@code date +%s%N} on this host
   * @param nanoTime {@link System#nanoTime()} at the same moment
   */
  record Line(String text, long epochNanos, long nanoTime) {}

  private final StringBuilder current = new StringBuilder();
  private final List<Line> lines = new ArrayList<>();

  @Override
  public synchronized void write(char[] buffer, int offset, int length) {
    for (int i = offset; i < offset + length; i++) {
      char c = buffer[i];
      if (c == '\n') {
        long nanoTime = System.nanoTime();
        Instant now = Instant.now();
        lines.add(
            new Line(
                current.toString(),
                now.getEpochSecond() * 1_000_000_000L + now.getNano(),
                nanoTime));
        current.setLength(0);
      } else if (c != '\r') {
        current.append(c);
      }
    }
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}

  /** The completed lines so far. */
  synchronized List<Line> lines() {
    return List.copyOf(lines);
  }

  /** The completed lines' text, and an unfinished last line if any. */
  synchronized List<String> texts() {
    List<String> texts = new ArrayList<>();
    lines.forEach(line -> texts.add(line.text()));
    if (current.length() > 0) {
      texts.add(current.toString());
    }
    return texts;
  }
}
