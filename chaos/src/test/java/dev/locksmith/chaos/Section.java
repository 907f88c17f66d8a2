package dev.locksmith.chaos;

import dev.locksmith.testkit.CriticalSection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * One read-modify-write of the ledger as a worker recorded it.
 *
 * @param pid the worker's process id
 * @param thread the worker thread's index
 * @param token the lease's fencing token, which the ledger write carried
 * @param startNanos when the section began (after the grant), on the host's monotonic clock
 * @param endNanos when it ended (after the write and the validity check)
 * @param value the ledger value written
 * @param confirmed whether the lease was still valid after the write; an unconfirmed section's
 *     write was accepted by the ledger but its lease was lost meanwhile
 */
record Section(
    long pid,
    int thread,
    long token,
    long startNanos,
    long endNanos,
    long value,
    boolean confirmed) {

  static final String FILE_PREFIX = "sections-";

  static Section parse(String line) {
    String[] f = line.strip().split(" ");
    if (f.length != 7) {
      throw new IllegalArgumentException("not a section record: '" + line + "'");
    }
    return new Section(
        Long.parseLong(f[0]),
        Integer.parseInt(f[1]),
        Long.parseLong(f[2]),
        Long.parseLong(f[3]),
        Long.parseLong(f[4]),
        Long.parseLong(f[5]),
        Boolean.parseBoolean(f[6]));
  }

  String toLine() {
    return pid
        + " "
        + thread
        + " "
        + token
        + " "
        + startNanos
        + " "
        + endNanos
        + " "
        + value
        + " "
        + confirmed;
  }

  /** The section for the test kit's mutex-model checker; the pid field carries pid and thread. */
  CriticalSection critical() {
    return new CriticalSection(pid * 1000 + thread, token, startNanos, endNanos);
  }

  /**
   * Every complete record in the {@code sections-*} files of a directory. A line still being
   * written (no newline yet) is left out.
   */
  static List<Section> readAll(Path dir) {
    List<Section> all = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file :
          files.filter(p -> p.getFileName().toString().startsWith(FILE_PREFIX)).toList()) {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        int end = text.lastIndexOf('\n');
        if (end < 0) {
          continue;
        }
        for (String line : text.substring(0, end).split("\n")) {
          if (!line.isBlank()) {
            all.add(parse(line));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read sections in " + dir, e);
    }
    return all;
  }
}
