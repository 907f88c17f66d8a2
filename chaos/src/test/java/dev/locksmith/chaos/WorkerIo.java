package dev.locksmith.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/** What worker mains share: commands from standard input, and files written whole or by line. */
final class WorkerIo {
  private WorkerIo() {}

  /**
   * Reads standard input on a daemon thread; each line becomes a command, end of input (the test
   * JVM went away) the command {@code stop}.
   */
  static BlockingQueue<String> commands() {
    BlockingQueue<String> commands = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  commands.add(line.strip());
                }
              } catch (IOException e) {
                // treated as end of input
              }
              commands.add("stop");
            },
            "stdin-commands");
    reader.setDaemon(true);
    reader.start();
    return commands;
  }

  /** Writes a small file atomically (temp file, then rename), so readers never see half of it. */
  static void writeAtomically(Path file, String text) {
    try {
      Path temp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(temp, text, StandardCharsets.UTF_8);
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** Opens a file for appending records, created if missing. */
  static Writer appender(Path file) throws IOException {
    return Files.newBufferedWriter(
        file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  /** Parses the ledger's value; an empty ledger holds 0. */
  static long ledgerValue(String text) {
    String value = text.strip();
    return value.isEmpty() ? 0 : Long.parseLong(value);
  }
}
