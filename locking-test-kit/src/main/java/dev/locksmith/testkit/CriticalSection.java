package dev.locksmith.testkit;

/**
 * One critical section as a contender recorded it.
 *
 * @param pid the contender's process id
 * @param fencingToken the lease's fencing token
 * @param startNanos when the section began, on the host's monotonic clock ({@code System.nanoTime}
 *     is CLOCK_MONOTONIC on Linux, shared by every process of the host)
 * @param endNanos when the section ended
 */
public record CriticalSection(long pid, long fencingToken, long startNanos, long endNanos) {

  /**
   * Parses a line written by {@link #toLine()}.
   *
   * @param line a line written by {@link #toLine()}
   * @return the section
   */
  public static CriticalSection parse(String line) {
    String[] parts = line.strip().split(" ");
    if (parts.length != 4) {
      throw new IllegalArgumentException("not a critical-section record: '" + line + "'");
    }
    return new CriticalSection(
        Long.parseLong(parts[0]),
        Long.parseLong(parts[1]),
        Long.parseLong(parts[2]),
        Long.parseLong(parts[3]));
  }

  /**
   * The record as one line: {@code pid token start end}.
   *
   * @return the record as one line: {@code pid token start end}
   */
  public String toLine() {
    return pid + " " + fencingToken + " " + startNanos + " " + endNanos;
  }
}
