package dev.locksmith.file;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.OwnerTokens;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The persistent fencing counter of one lock, the file {@code <base>.fence} (its format is {@link
 * CounterFile}'s part), and the two ways to update it. Tokens only ever rise, and every token is at
 * least the wall clock in microseconds ({@link #clockFloor}).
 *
 * <p>There are two ways to update the counter:
 *
 * <ul>
 *   <li>{@link #storeInPlace}, the fast path of an acquisition: overwrite, through a channel opened
 *       <em>before</em> the caller created its lock file, the slot that does not hold the value
 *       read. Afterwards {@link #stillInPlace} reads the file now at the counter's name and checks
 *       the stamp: only then did the write land in the live counter.
 *   <li>{@link #replace}: take the file away (rename it to a private name), read it, and link a new
 *       file holding a value at least as high in at the counter's name, never replacing a file
 *       there. A file taken away is never linked back, so a channel onto it can never again reach
 *       the live counter: a paused writer's late write lands in a file nobody reads.
 * </ul>
 *
 * <p>A write cut short by a crash garbles only the slot being written; the other still holds the
 * previous value, which no granted token exceeds. A file without any valid slot fails with a {@link
 * LockProviderException} naming it, never a restart from 0. A file in the earlier one-record format
 * ({@value CounterFile#LEGACY_HEADER}) is read, and replaced whole by the next update. The module
 * README gives the whole argument.
 */
final class FencingCounter implements AutoCloseable {
  private static final int REPLACE_ROUNDS = 8;

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
   * error (the counter then reads 0 and is created by {@link #replace}). An acquisition opens it
   * before it creates its lock file.
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
   * not fit in the slot's block. The caller then uses {@link #replace}.
   */
  boolean storeInPlace(long token, String stamp) throws IOException {
    if (token <= last) {
      throw new IllegalArgumentException(
          "fencing counter of '" + lockId + "' must rise: " + token + " <= " + last);
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

  /** What a {@link #replace} needs, which decides when a file published by another will do. */
  enum Goal {
    /**
     * An acquisition: the counter must be a file this caller published, with its stamp (its token
     * must be in the live counter). A file another links in meanwhile is taken away in turn.
     */
    OWN,
    /**
     * A take-over: the file now at the counter's name must be taken away (a stale holder may have
     * it open), and the counter must end at least at the value to publish. A file another links in
     * afterwards is new (a taken file is never linked back), so one holding enough will do.
     */
    RAISE,
    /**
     * Putting values back (a prune that found an acquisition under way): the counter must end at
     * least at the values taken; any file already there that holds that much will do.
     */
    RESTORE
  }

  /**
   * Replaces the counter file of {@code lockId} with a new one holding {@code next} applied to the
   * highest value taken away (0 when there was none), and never less than that value; the {@code
   * goal} says when a file another process links in meanwhile will do instead.
   *
   * <p>Each round renames the file at the counter's name, if any, to a private name ({@code
   * firstTake} in the first round, a unique one after; with {@code firstTake} {@code null} the
   * first round takes nothing, for callers that found no file or do not need to take one), reads
   * it, and links a new file (slot 0 and {@code stamp}) in at the counter's name, which fails
   * rather than replace a file created there meanwhile; then that file is accepted (see {@link
   * Goal}) or the next round takes it too. The files taken are deleted only once the counter holds
   * at least their values, so a value is never dropped, and a file taken away is never linked back
   * (only ever copied). {@code alsoTake} names files taken away by an earlier caller that stopped
   * half-way (a stealer of an earlier claim generation, a stale holder in its slow path), or by
   * this caller itself (a prune putting a counter back): they are taken over and counted too.
   *
   * @param beforePublish called once, after the first round took and read the file and before it
   *     publishes (a test hook)
   * @return the value the counter holds afterwards (published, or found), or 0 when nothing was
   *     taken and {@code next} gave 0 (nothing to publish)
   * @throws LockProviderException when a file taken has no valid slot (a copy is put back where
   *     possible) or the counter kept changing for {@value #REPLACE_ROUNDS} rounds
   */
  static long replace(
      LockDirectory directory,
      LockFileNames.LockFiles files,
      String lockId,
      Goal goal,
      @Nullable Path firstTake,
      List<Path> alsoTake,
      LongUnaryOperator next,
      String stamp,
      Runnable beforePublish)
      throws IOException {
    List<Path> held = new ArrayList<>();
    long carried = 0;
    for (Path earlier : alsoTake) {
      Path mine = files.taken(OwnerTokens.newToken());
      if (directory.moveAway(earlier, mine)) {
        held.add(mine);
        carried = Math.max(carried, valueOf(directory, mine, files, lockId, held));
      }
    }
    for (int round = 0; round < REPLACE_ROUNDS; round++) {
      if (round > 0 || firstTake != null) {
        Path mine =
            firstTake != null && round == 0 ? firstTake : files.taken(OwnerTokens.newToken());
        if (directory.moveAway(files.fence(), mine)) {
          held.add(mine);
          carried = Math.max(carried, valueOf(directory, mine, files, lockId, held));
        }
      }
      if (round == 0) {
        beforePublish.run();
      }
      long value = Math.max(carried, next.applyAsLong(carried));
      if (value == 0 && held.isEmpty()) {
        return 0;
      }
      long result = -1;
      if (directory.publish(files, files.fence(), CounterFile.newFile(lockId, value, stamp))) {
        result = value;
      } else if (goal != Goal.OWN) {
        long found = CounterFile.valueAt(files.fence(), files, lockId);
        if (found >= value) {
          result = found;
        }
      }
      if (result >= 0) {
        for (Path taken : held) {
          Files.deleteIfExists(taken);
        }
        return result;
      }
    }
    throw new LockProviderException(
        "The fencing counter "
            + files.fence()
            + " of lock '"
            + lockId
            + "' was replaced by others "
            + REPLACE_ROUNDS
            + " times while this process replaced it; the values taken are kept in "
            + held);
  }

  /**
   * Whether the file at the counter's name was published by {@link #replace} with {@code stamp}
   * (and not replaced since).
   */
  static boolean holdsPublished(LockFileNames.LockFiles files, String lockId, String stamp)
      throws IOException {
    return CounterFile.holdsStamp(files, CounterFile.slotLength(lockId), stamp);
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

  /**
   * The value of a file this caller took away. When it has no valid slot, a copy is put back at the
   * counter's name (unless a file is there already), so that acquisitions keep failing loudly
   * instead of counting from the clock alone, and the failure is thrown. When it is gone, a later
   * stealer generation took it over from this caller and counts it itself: 0.
   */
  private static long valueOf(
      LockDirectory directory,
      Path taken,
      LockFileNames.LockFiles files,
      String lockId,
      List<Path> held)
      throws IOException {
    long value;
    try {
      value = CounterFile.valueAt(taken, files, lockId);
    } catch (LockProviderException e) {
      try {
        if (directory.publish(files, files.fence(), Files.readAllBytes(taken))) {
          Files.deleteIfExists(taken);
          held.remove(taken);
        }
      } catch (IOException restore) {
        e.addSuppressed(restore);
      }
      throw e;
    }
    if (value < 0) {
      held.remove(taken);
      return 0;
    }
    return value;
  }
}
