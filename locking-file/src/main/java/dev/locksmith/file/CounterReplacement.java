package dev.locksmith.file;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.OwnerTokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The slow way to update a {@link FencingCounter}: take the file away (rename it to a private
 * name), read it, and link a new file holding a value at least as high in at the counter's name,
 * never replacing a file there. A file taken away is never linked back, so a channel onto it can
 * never again reach the live counter: a paused writer's late write lands in a file nobody reads.
 */
final class CounterReplacement {
  private static final int REPLACE_ROUNDS = 8;

  private CounterReplacement() {}

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
            + " of lock "
            + LockIdText.quoted(lockId)
            + " was replaced by others "
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
