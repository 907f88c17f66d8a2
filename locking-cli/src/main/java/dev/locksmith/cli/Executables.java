package dev.locksmith.cli;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Finds programs as a shell or {@code execvp} would: a path as given, a bare name on PATH. */
final class Executables {
  private Executables() {}

  /** The program {@code name} names, if it exists and is executable. */
  static Optional<Path> find(String name, @Nullable String path) {
    if (name.isEmpty()) {
      return Optional.empty();
    }
    try {
      if (name.contains("/")) {
        return runnable(Path.of(name));
      }
      for (String dir : (path == null ? "/usr/local/bin:/usr/bin:/bin" : path).split(":")) {
        Optional<Path> found = runnable(Path.of(dir.isEmpty() ? "." : dir, name));
        if (found.isPresent()) {
          return found;
        }
      }
    } catch (InvalidPathException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  /** The program {@code name} on this process's PATH, else in {@code fallback}. */
  static Optional<Path> onPath(String name, String... fallback) {
    Optional<Path> found = find(name, System.getenv("PATH"));
    for (int i = 0; found.isEmpty() && i < fallback.length; i++) {
      found = runnable(Path.of(fallback[i]));
    }
    return found;
  }

  /** Why {@code name} cannot be run, for a message. */
  static String whyNot(String name) {
    if (!name.contains("/")) {
      return "not found on PATH";
    }
    Path file = Path.of(name);
    if (!Files.exists(file)) {
      return "no such file";
    }
    if (Files.isDirectory(file)) {
      return "it is a directory";
    }
    return "not executable (permission denied)";
  }

  private static Optional<Path> runnable(Path file) {
    File f = file.toFile();
    return f.isFile() && f.canExecute() ? Optional.of(file) : Optional.empty();
  }
}
