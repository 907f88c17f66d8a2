package dev.locksmith.testkit;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What is logged to the console while it is open, for tests that check a warning: the tests log
 * through slf4j-simple, which writes to {@code System.err} as it is at each line, so this tees
 * {@code System.err} into a buffer (the output still reaches the original stream). Lines look like
 * {@code [thread] WARN dev.locksmith.core.ProviderCircuit - Lock provider ...}; a logged throwable
 * adds its stack trace lines.
 */
public final class ConsoleLog implements AutoCloseable {
  private final PrintStream original = System.err;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  /** Starts capturing {@code System.err}. */
  public ConsoleLog() {
    OutputStream tee =
        new OutputStream() {
          @Override
          public void write(int b) {
            synchronized (captured) {
              captured.write(b);
            }
            original.write(b);
          }

          @Override
          public void write(byte[] bytes, int offset, int length) {
            synchronized (captured) {
              captured.write(bytes, offset, length);
            }
            original.write(bytes, offset, length);
          }
        };
    System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
  }

  /**
   * Every line written so far.
   *
   * @return the lines, oldest first
   */
  public List<String> lines() {
    synchronized (captured) {
      return captured.toString(StandardCharsets.UTF_8).lines().toList();
    }
  }

  /**
   * The lines of one level that contain {@code text}.
   *
   * @param level a level as slf4j-simple writes it, such as {@code WARN}
   * @param text what the lines contain
   * @return those lines, oldest first
   */
  public List<String> lines(String level, String text) {
    return lines().stream()
        .filter(line -> line.contains("] " + level + " ") && line.contains(text))
        .toList();
  }

  /** Stops capturing: {@code System.err} is the original stream again. */
  @Override
  public void close() {
    System.err.flush();
    System.setErr(original);
  }
}
