package dev.locksmith.core.fencing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.jspecify.annotations.Nullable;

/**
 * A small text file that refuses stale writers: each write carries a fencing token and is refused
 * when the file already holds a write with a higher one. The check and the write are atomic across
 * the processes of one host (an OS file lock on a sibling {@code .fence-lock} file, then an atomic
 * rename); over NFS this depends on the NFS lock manager.
 *
 * <p>The file's first line is the highest token that has read or written it, the rest is the value.
 */
public final class FencedFile {
  private final Path path;
  private final Path lockPath;

  /**
   * A value and the fencing token it was written with.
   *
   * @param value the text, empty when nothing was written yet
   * @param token the token of the last accepted write, or {@link Long#MIN_VALUE} for none
   */
  public record Fenced(String value, long token) {}

  /**
   * A fenced file at {@code path}; the file is created by the first write.
   *
   * @param path the file
   */
  public FencedFile(Path path) {
    this.path = path;
    this.lockPath = path.resolveSibling(path.getFileName() + ".fence-lock");
  }

  /**
   * Reads the value and the token of the last accepted write.
   *
   * @return the value and its token
   */
  public Fenced read() {
    try {
      if (!Files.exists(path)) {
        return new Fenced("", Long.MIN_VALUE);
      }
      return parse(Files.readString(path, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read fenced file " + path, e);
    }
  }

  /**
   * Reads the value for a holder of a fencing token, and records the token so that any later write
   * with a lower token is refused. A read-modify-write must read this way: otherwise a paused
   * holder with an older token could still write between a newer holder's read and write, and that
   * write would be lost.
   *
   * @param token the holder's fencing token
   * @return the value, with the token now recorded
   * @throws StaleFencingTokenException when the file has seen a higher token; nothing changes then
   */
  public Fenced read(long token) {
    return update(token, null);
  }

  /**
   * Writes a value with a fencing token.
   *
   * @param token the writer's fencing token
   * @param value the text to write
   * @throws StaleFencingTokenException when the file holds a write with a higher token; the file is
   *     unchanged then
   */
  public void write(long token, String value) {
    update(token, value);
  }

  private Fenced update(long token, @Nullable String newValue) {
    try (FileChannel channel =
        FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      // Held until the channel closes: closing a channel releases its locks.
      channel.lock();
      Fenced current = read();
      if (token < current.token()) {
        throw new StaleFencingTokenException(path.toString(), token, current.token());
      }
      String value = newValue != null ? newValue : current.value();
      if (newValue != null || token > current.token()) {
        Path temp =
            path.resolveSibling(path.getFileName() + ".tmp-" + ProcessHandle.current().pid());
        Files.writeString(temp, token + "\n" + value, StandardCharsets.UTF_8);
        Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      }
      return new Fenced(value, token);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write fenced file " + path, e);
    }
  }

  private Fenced parse(String text) {
    int newline = text.indexOf('\n');
    String first = newline < 0 ? text : text.substring(0, newline);
    try {
      return new Fenced(
          newline < 0 ? "" : text.substring(newline + 1), Long.parseLong(first.strip()));
    } catch (NumberFormatException e) {
      throw new IllegalStateException(
          "Fenced file " + path + " does not start with a fencing token: '" + first + "'", e);
    }
  }
}
