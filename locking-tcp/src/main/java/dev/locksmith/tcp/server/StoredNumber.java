package dev.locksmith.tcp.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A non-negative number kept in a file of its own in the data directory, replaced so that a crash
 * leaves either the old number or the new one: write a temp file, fsync it, rename it over the
 * file, fsync the directory.
 */
final class StoredNumber {
  private static final Logger LOG = LoggerFactory.getLogger(StoredNumber.class);

  private StoredNumber() {}

  /**
   * The number in {@code file}.
   *
   * @param corrupt the message for a file that holds no such number, given what it holds
   * @throws IOException when the file cannot be read or holds no non-negative number
   */
  static long read(Path file, UnaryOperator<String> corrupt) throws IOException {
    // A number is at most 20 digits and a newline; read a little more to show what is there
    // instead.
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(64);
    }
    String text = new String(bytes, StandardCharsets.ISO_8859_1).strip();
    long stored;
    try {
      stored = bytes.length < 64 ? Long.parseLong(text) : -1;
    } catch (NumberFormatException e) {
      stored = -1;
    }
    if (stored < 0) {
      throw new IOException(
          corrupt.apply(text.length() > 40 ? text.substring(0, 40) + "..." : text));
    }
    return stored;
  }

  /** Replaces the number in {@code target} with {@code value}, durably. */
  static void write(Path target, long value) throws IOException {
    Path temp = target.resolveSibling(target.getFileName() + ".tmp");
    try (FileChannel channel =
        FileChannel.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer bytes = ByteBuffer.wrap((value + "\n").getBytes(StandardCharsets.US_ASCII));
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
      channel.force(true);
    }
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
    }
    syncDirectory(target.getParent());
  }

  private static void syncDirectory(@Nullable Path dir) {
    if (dir == null) {
      return;
    }
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // Some platforms cannot open a directory; the rename is still atomic there.
      LOG.debug("Cannot fsync directory {}: {}", dir, e.toString());
    }
  }
}
