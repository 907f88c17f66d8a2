package dev.locksmith.cli.demo;

import java.io.PrintWriter;

/**
 * Draws who holds the lock: one column per worker, one row per event. On a terminal the holder's
 * column is coloured; otherwise the same rows are plain text.
 */
final class Timeline {
  private static final String RESET = "\u001b[0m";
  private static final String[] COLOURS = {
    "\u001b[42;30m", "\u001b[44;37m", "\u001b[45;37m", "\u001b[43;30m", "\u001b[46;30m"
  };

  private final PrintWriter out;
  private final int workers;
  private final boolean ansi;
  private final long start;

  Timeline(PrintWriter out, int workers, boolean ansi, long start) {
    this.out = out;
    this.workers = workers;
    this.ansi = ansi;
    this.start = start;
  }

  void header() {
    StringBuilder row = new StringBuilder("   time  ");
    for (int w = 0; w < workers; w++) {
      row.append(String.format("| worker %-3d", w));
    }
    out.println(row.append("|"));
  }

  void show(DemoEvent event) {
    StringBuilder row = new StringBuilder(String.format("%6.2fs  ", (event.nanos() - start) / 1e9));
    for (int w = 0; w < workers; w++) {
      row.append('|');
      if (w == event.worker()) {
        String cell = String.format(" %-10s", label(event));
        row.append(ansi ? COLOURS[w % COLOURS.length] + cell + RESET : cell);
      } else {
        row.append("           ");
      }
    }
    out.println(row.append("|"));
    out.flush();
  }

  void note(String text) {
    out.println(ansi ? "\u001b[1m" + text + RESET : text);
    out.flush();
  }

  /**
   * The last digits of a fencing token, enough to see them rise in a column ten wide: tokens are
   * microsecond timestamps (16 digits) on most providers.
   */
  private static String shortToken(long token) {
    String digits = Long.toString(token);
    return digits.length() <= 5 ? digits : "…" + digits.substring(digits.length() - 4);
  }

  private static String label(DemoEvent event) {
    return switch (event.kind()) {
      case "acquired" -> "#" + shortToken(event.token()) + " got";
      case "written" -> "=" + event.value();
      case "refused" -> "REFUSED";
      default -> "released";
    };
  }
}
