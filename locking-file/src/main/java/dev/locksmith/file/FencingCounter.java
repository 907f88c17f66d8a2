package dev.locksmith.file;

import dev.locksmith.core.LockProviderException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The persistent fencing counter of one lock: the file {@code <base>.fence} with two checksummed
 * slots, each holding the last token granted when it was written.
 *
 * <p>Slot 0 starts at byte 0 and slot 1 at the first 4 KiB boundary past slot 0's length, so the
 * two never share a file-system block. A slot is the text
 *
 * <pre>
 * locksmith-fence 2
 * lock-id=orders:42
 * slot=1
 * last-token=0000000000000000017
 * crc32=1a2b3c4d
 * </pre>
 *
 * <p>with the token in 19 digits, so a slot's length depends only on the lock id. The counter is
 * the higher token of the valid slots. Tokens only ever rise, so the token doubles as the slot's
 * sequence number. An update overwrites, in place, the slot that does <em>not</em> hold the current
 * value: a write cut short by a crash garbles only that slot and the other still holds the previous
 * value, which no granted token exceeds (a token is returned only after its update completed). A
 * file without any valid slot fails with a {@link LockProviderException} naming it, never a restart
 * from 0. The first update of a lock writes a new file with slot 0 through a temporary file and a
 * rename (which replaces nothing), so a file never exists without a valid slot. A file in the
 * earlier one-record format ({@value #LEGACY_HEADER}) is read, and replaced whole by the next
 * update.
 *
 * <p>In-place writes avoid the data flush that ext4 performs when a rename replaces an existing
 * file; that flush made every acquisition cost about a millisecond.
 */
final class FencingCounter implements AutoCloseable {
  static final String HEADER = "locksmith-fence 2";
  static final String LEGACY_HEADER = "locksmith-fence 1";
  static final int BLOCK = 4096;

  private final LockDirectory directory;
  private final LockFileNames.LockFiles files;
  private final String lockId;
  private final @Nullable FileChannel channel;
  private final int slotLength;
  private final long stride;
  private final boolean rewriteWhole;
  private long last;
  private int nextSlot;

  private FencingCounter(
      LockDirectory directory,
      LockFileNames.LockFiles files,
      String lockId,
      @Nullable FileChannel channel,
      int slotLength,
      boolean rewriteWhole,
      long last,
      int nextSlot) {
    this.directory = directory;
    this.files = files;
    this.lockId = lockId;
    this.channel = channel;
    this.slotLength = slotLength;
    this.stride = stride(slotLength);
    this.rewriteWhole = rewriteWhole;
    this.last = last;
    this.nextSlot = nextSlot;
  }

  /**
   * Opens and reads the counter of {@code lockId}. The caller must be the only writer: the creator
   * of the lock file, or the stealer holding the claim while the stale lock file is in place.
   *
   * @throws LockProviderException when the file exists without a valid slot
   */
  static FencingCounter open(LockDirectory directory, LockFileNames.LockFiles files, String lockId)
      throws IOException {
    int slotLength = slot(lockId, 0, 0).length;
    Path fence = files.fence();
    FileChannel channel;
    try {
      channel = FileChannel.open(fence, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (NoSuchFileException e) {
      return new FencingCounter(directory, files, lockId, null, slotLength, true, 0, 0);
    }
    try {
      byte[] bytes = readUpTo(channel, (int) stride(slotLength) * 2);
      return decode(directory, files, lockId, channel, slotLength, bytes);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  private static FencingCounter decode(
      LockDirectory directory,
      LockFileNames.LockFiles files,
      String lockId,
      FileChannel channel,
      int slotLength,
      byte[] bytes) {
    if (startsWith(bytes, LEGACY_HEADER + "\n")) {
      try {
        long token = legacyToken(bytes, lockId);
        return new FencingCounter(directory, files, lockId, channel, slotLength, true, token, 0);
      } catch (LockRecord.KeyValueText.MalformedException e) {
        throw unreadable(files, lockId, "the file (format 1): " + e.getMessage());
      }
    }
    long stride = stride(slotLength);
    String[] problems = new String[2];
    long best = -1;
    int bestSlot = -1;
    for (int index = 0; index < 2; index++) {
      int offset = (int) (index * stride);
      try {
        long token = slotToken(bytes, offset, slotLength, index, lockId);
        if (bestSlot < 0 || token > best) {
          best = token;
          bestSlot = index;
        }
      } catch (LockRecord.KeyValueText.MalformedException e) {
        problems[index] =
            "slot "
                + index
                + " (bytes "
                + offset
                + "-"
                + (offset + slotLength - 1)
                + " of "
                + bytes.length
                + "): "
                + e.getMessage();
      }
    }
    if (bestSlot < 0) {
      throw unreadable(files, lockId, problems[0] + "; " + problems[1]);
    }
    return new FencingCounter(
        directory, files, lockId, channel, slotLength, false, best, 1 - bestSlot);
  }

  /** The last token granted for the lock, 0 when none was. */
  long last() {
    return last;
  }

  /**
   * Persists {@code token} as the last token granted; it must exceed {@link #last()}. Returns only
   * once the write is complete (and forced to storage with {@code sync=true}).
   */
  void store(long token) throws IOException {
    if (token <= last) {
      throw new IllegalArgumentException(
          "fencing counter of '" + lockId + "' must rise: " + token + " <= " + last);
    }
    FileChannel open = channel;
    if (rewriteWhole || open == null) {
      // No file yet (or the old format): a new file holding slot 0, renamed into place.
      directory.replace(files, files.fence(), slot(lockId, 0, token));
      if (directory.sync()) {
        directory.forceDirectory();
      }
      nextSlot = 1;
    } else {
      ByteBuffer buffer = ByteBuffer.wrap(slot(lockId, nextSlot, token));
      long position = nextSlot * stride;
      while (buffer.hasRemaining()) {
        position += open.write(buffer, position);
      }
      if (directory.sync()) {
        open.force(true);
      }
      nextSlot = 1 - nextSlot;
    }
    last = token;
  }

  @Override
  public void close() throws IOException {
    FileChannel open = channel;
    if (open != null) {
      open.close();
    }
  }

  /** The bytes of one slot. */
  static byte[] slot(String lockId, int index, long token) {
    StringBuilder text = new StringBuilder(128).append(HEADER).append('\n');
    text.append("lock-id=").append(LockRecord.KeyValueText.escape(lockId)).append('\n');
    text.append("slot=").append(index).append('\n');
    String digits = Long.toString(token);
    text.append("last-token=");
    for (int i = digits.length(); i < 19; i++) {
      text.append('0');
    }
    text.append(digits).append('\n');
    return LockRecord.KeyValueText.seal(text);
  }

  /** Where slot 1 starts: the first block boundary at or past the end of slot 0. */
  static long stride(int slotLength) {
    return ((long) slotLength + BLOCK - 1) / BLOCK * BLOCK;
  }

  private static long slotToken(byte[] bytes, int offset, int length, int index, String lockId)
      throws LockRecord.KeyValueText.MalformedException {
    if (bytes.length < offset + length) {
      throw new LockRecord.KeyValueText.MalformedException(
          bytes.length <= offset ? "missing" : "cut short");
    }
    Map<String, String> fields =
        LockRecord.KeyValueText.open(Arrays.copyOfRange(bytes, offset, offset + length), HEADER);
    checkLockId(fields, lockId);
    String slot = LockRecord.KeyValueText.text(fields, "slot");
    if (!slot.equals(Integer.toString(index))) {
      throw new LockRecord.KeyValueText.MalformedException(
          "it says slot=" + slot + " at the place of slot " + index);
    }
    return token(fields);
  }

  private static long legacyToken(byte[] bytes, String lockId)
      throws LockRecord.KeyValueText.MalformedException {
    Map<String, String> fields = LockRecord.KeyValueText.open(bytes, LEGACY_HEADER);
    checkLockId(fields, lockId);
    return token(fields);
  }

  private static long token(Map<String, String> fields)
      throws LockRecord.KeyValueText.MalformedException {
    long token = LockRecord.KeyValueText.number(fields, "last-token");
    if (token < 0) {
      throw new LockRecord.KeyValueText.MalformedException("last-token is negative: " + token);
    }
    return token;
  }

  private static void checkLockId(Map<String, String> fields, String lockId)
      throws LockRecord.KeyValueText.MalformedException {
    String id = LockRecord.KeyValueText.text(fields, "lock-id");
    if (!id.equals(lockId)) {
      throw new LockRecord.KeyValueText.MalformedException(
          "it belongs to lock id '" + id + "', not '" + lockId + "'");
    }
  }

  private static LockProviderException unreadable(
      LockFileNames.LockFiles files, String lockId, String problem) {
    return new LockProviderException(
        "Fencing counter file "
            + files.fence()
            + " has no valid slot ("
            + problem
            + "); lock '"
            + lockId
            + "' cannot be granted without risking a repeated fencing token, so it is not reset"
            + " to 0. Restore the file from a backup, or replace it with a counter above every"
            + " token issued so far (see 'Repairing a fencing counter' in the locking-file"
            + " README).");
  }

  private static boolean startsWith(byte[] bytes, String prefix) {
    byte[] expected = prefix.getBytes(StandardCharsets.UTF_8);
    return bytes.length >= expected.length
        && Arrays.equals(bytes, 0, expected.length, expected, 0, expected.length);
  }

  private static byte[] readUpTo(FileChannel channel, int limit) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(limit);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, buffer.position()) < 0) {
        break;
      }
    }
    return Arrays.copyOf(buffer.array(), buffer.position());
  }
}
