package dev.locksmith.file;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LockIdText;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The persistent fencing counter of one lock, the file {@code <base>.fence} (its format is {@link
 * CounterFile}'s part), and the fast way to update it. Tokens only ever rise, and every token is at
 * least the wall clock in microseconds ({@link #clockFloor}).
 *
 * <p>There are two ways to update the counter:
 *
 * <ul>
 *   <li>{@link #storeInPlace}, the fast path of an acquisition: overwrite, through a channel opened
 *       <em>before</em> the caller created its lock file, the slot that does not hold the value
 *       read. Afterwards {@link #stillInPlace} reads the file now at the counter's name and checks
 *       the stamp: only then did the write land in the live counter.
 *   <li>{@link CounterReplacement#replace}: take the file away, read it, and link a new file in at
 *       the counter's name, never replacing a file there.
 * </ul>
 *
 * <p>A write cut short by a crash garbles only the slot being written; the other still holds the
 * previous value, which no granted token exceeds. A file without any valid slot fails with a {@link
 * LockProviderException} naming it, never a restart from 0. A file in the earlier one-record format
 * ({@value CounterFile#LEGACY_HEADER}) is read, and replaced whole by the next update. The module
 * README gives the whole argument.
 */
final class FencingCounter implements AutoCloseable {
  private final LockDirectory directory;
  private final LockFileNames.LockFiles files;
  private final String lockId;
  private final @Nullable FileChannel channel;
  private final int slotLength;
  private final long stride;
  private boolean legacy;
  private long last;
  private int nextSlot;
  private int writtenSlot = -1;

  private FencingCounter(
      LockDirectory directory,
      LockFileNames.LockFiles files,
      String lockId,
      @Nullable FileChannel channel) {
    this.directory = directory;
    this.files = files;
    this.lockId = lockId;
    this.channel = channel;
    this.slotLength = CounterFile.slotLength(lockId);
    this.stride = CounterFile.stride(slotLength);
  }

  /**
   * Opens the counter file of {@code lockId} as it is now, without reading it; no file is not an
   * error (the counter then reads 0 and is created by {@link CounterReplacement#replace}). An
   * acquisition opens it before it creates its lock file.
   */
  static FencingCounter open(LockDirectory directory, LockFileNames.LockFiles files, String lockId)
      throws IOException {
    FileChannel channel;
    try {
      channel = FileChannel.open(files.fence(), StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (NoSuchFileException e) {
      channel = null;
    }
    return new FencingCounter(directory, files, lockId, channel);
  }

  /**
   * Reads the counter through the channel opened by {@link #open}: the last token granted, 0 when
   * there was no file.
   *
   * @param hooks may give an earlier value back, as a network mount's stale cache would
   * @throws LockProviderException when the file has no valid slot
   */
  long read(TestHooks hooks) throws IOException {
    FileChannel open = channel;
    if (open == null) {
      last = 0;
      return 0;
    }
    CounterFile.Decoded decoded = CounterFile.read(open, files, lockId);
    legacy = decoded.legacy();
    last = hooks.readThroughEarlyOpen(lockId, decoded.value());
    if (!legacy) {
      nextSlot = 1 - decoded.slot();
    }
    return last;
  }

  /** Whether there was a counter file when it was opened. */
  boolean found() {
    return channel != null;
  }

  /** The value {@link #read} found. */
  long last() {
    return last;
  }

  /**
   * Writes {@code token} and {@code stamp}, in place, into the slot that does not hold the value
   * read, and returns once the write is complete (and forced to storage with {@code sync=true}).
   * Returns {@code false}, writing nothing, where an in-place write is impossible: there was no
   * file at {@link #open}, it has the earlier format, or the lock id is so long that the stamp does
   * not fit in the slot's block. The caller then uses {@link CounterReplacement#replace}.
   */
  boolean storeInPlace(long token, String stamp) throws IOException {
    if (token <= last) {
      throw new IllegalArgumentException(
          "fencing counter of "
              + LockIdText.quoted(lockId)
              + " must rise: "
              + token
              + " <= "
              + last);
    }
    FileChannel open = channel;
    if (open == null || legacy || slotLength + CounterFile.STAMP_LENGTH > stride) {
      return false;
    }
    ByteBuffer buffer = ByteBuffer.wrap(CounterFile.slotWithStamp(lockId, nextSlot, token, stamp));
    long position = nextSlot * stride;
    while (buffer.hasRemaining()) {
      position += open.write(buffer, position);
    }
    if (directory.sync()) {
      open.force(true);
    }
    writtenSlot = nextSlot;
    nextSlot = 1 - nextSlot;
    last = token;
    return true;
  }

  /**
   * Whether the file now at the counter's name carries {@code stamp} after the slot {@link
   * #storeInPlace} wrote, that is, whether the write landed in the live counter.
   */
  boolean stillInPlace(String stamp) throws IOException {
    if (writtenSlot < 0) {
      throw new IllegalStateException("nothing was stored in place");
    }
    return CounterFile.holdsStamp(files, writtenSlot * stride + slotLength, stamp);
  }

  @Override
  public void close() throws IOException {
    FileChannel open = channel;
    if (open != null) {
      open.close();
    }
  }

  /**
   * The lowest token the wall clock allows: microseconds since the epoch. Every token is at least
   * this, so tokens keep rising even when a counter file is lost, as long as the last token was
   * granted longer ago than the clocks of any two hosts differ (see the module README).
   */
  static long clockFloor() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
  }
}
