package dev.locksmith.tcp.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fencing tokens from one counter for the whole server, so they strictly increase per lock.
 *
 * <p>With a data directory, the counter survives restarts: before handing out tokens from a block
 * the sequence writes the block's end (the high-water mark) to {@code fencing.hwm} with write-temp,
 * fsync, atomic rename and directory fsync. A restarted server begins after the stored mark,
 * skipping the unused rest of the last block. Without a data directory the counter starts at the
 * wall clock in milliseconds times 1000, so tokens still increase across restarts while the server
 * grants fewer than 1000 leases per millisecond on average and the clock does not step back.
 *
 * <p>Not thread-safe: the server's core thread alone uses it.
 */
final class FencingSequence {
  static final String FILE_NAME = "fencing.hwm";
  private static final Logger LOG = LoggerFactory.getLogger(FencingSequence.class);

  private final @Nullable Path file;
  private final long blockSize;
  private long last;
  private long reservedUpTo;

  private FencingSequence(@Nullable Path file, long blockSize, long last) {
    this.file = file;
    this.blockSize = blockSize;
    this.last = last;
    this.reservedUpTo = file == null ? Long.MAX_VALUE : last;
  }

  /** A sequence persisted in {@code dataDir}, or a wall-clock based one when it is null. */
  static FencingSequence open(@Nullable Path dataDir, long blockSize) throws IOException {
    if (dataDir == null) {
      return new FencingSequence(null, blockSize, System.currentTimeMillis() * 1000);
    }
    Path file = dataDir.resolve(FILE_NAME);
    long stored = 0;
    if (Files.exists(file)) {
      String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
      try {
        stored = Long.parseLong(text);
      } catch (NumberFormatException e) {
        throw new IOException(
            "fencing high-water mark file " + file + " is corrupt: '" + text + "'", e);
      }
      if (stored < 0) {
        throw new IOException("fencing high-water mark in " + file + " is negative: " + stored);
      }
    }
    LOG.info("Fencing tokens continue after high-water mark {} from {}", stored, file);
    return new FencingSequence(file, blockSize, stored);
  }

  /** The next token; reserves (and persists) a new block first when the current one is used up. */
  long next() {
    if (last >= reservedUpTo) {
      reserve(last + blockSize);
    }
    return ++last;
  }

  /** The last token handed out. */
  long last() {
    return last;
  }

  private void reserve(long upTo) {
    Path target = file;
    if (target == null) {
      return;
    }
    Path temp = target.resolveSibling(FILE_NAME + ".tmp");
    try {
      try (FileChannel channel =
          FileChannel.open(
              temp,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer bytes = ByteBuffer.wrap((upTo + "\n").getBytes(StandardCharsets.US_ASCII));
        while (bytes.hasRemaining()) {
          channel.write(bytes);
        }
        channel.force(true);
      }
      try {
        Files.move(
            temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      syncDirectory(target.getParent());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot persist fencing high-water mark " + upTo + " to " + target, e);
    }
    reservedUpTo = upTo;
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
