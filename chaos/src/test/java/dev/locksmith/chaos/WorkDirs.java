package dev.locksmith.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Scratch directories of scenario runs, under {@code target/chaos-work}, kept for inspection. */
final class WorkDirs {
  private WorkDirs() {}

  /** An empty directory for one run; what an earlier build left there is deleted. */
  static Path fresh(String name) {
    Path dir = ChaosReport.workDirectory().resolve(name).toAbsolutePath();
    try {
      if (Files.exists(dir)) {
        try (Stream<Path> files = Files.walk(dir)) {
          for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(file);
          }
        }
      }
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare " + dir, e);
    }
  }

  /** Every line of the files in {@code dir} whose names start with {@code prefix}. */
  static List<String> lines(Path dir, String prefix) {
    List<String> lines = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.filter(p -> p.getFileName().toString().startsWith(prefix)).toList()) {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          if (!line.isBlank()) {
            lines.add(line);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + prefix + "* in " + dir, e);
    }
    return lines;
  }
}
