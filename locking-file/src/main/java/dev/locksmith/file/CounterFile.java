package dev.locksmith.file;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LockIdText;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The format of a fencing counter file ({@code <base>.fence}), and reading one: two checksummed
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
 * <p>with the token in 19 digits, so a slot's length depends only on the lock id, followed in the
 * same block by a <em>stamp</em> ({@code stamp=} and 32 random hex digits) that only its writer
 * reads back. The counter is the higher token of the valid slots. Tokens only ever rise, so the
 * token doubles as the slot's sequence number. A file without any valid slot fails with a {@link
 * LockProviderException} naming it, never a restart from 0. A file in the earlier one-record format
 * ({@value #LEGACY_HEADER}) is read too. How the file is updated is {@link FencingCounter}'s part.
 */
final class CounterFile {
  static final String HEADER = "locksmith-fence 2";
  static final String LEGACY_HEADER = "locksmith-fence 1";
  static final int BLOCK = 4096;
  static final int STAMP_LENGTH = "stamp=".length() + 32 + 1;

  private CounterFile() {}

  /**
   * Reads the counter file at {@code path} (any name: a counter, or one taken away), or {@code -1}
   * when there is none.
   *
   * @throws LockProviderException when it has no valid slot
   */
  static long valueAt(Path path, LockFileNames.LockFiles files, String lockId) throws IOException {
    byte[] bytes;
    try (FileChannel open = FileChannel.open(path, StandardOpenOption.READ)) {
      bytes = readUpTo(open, 0, (int) stride(slotLength(lockId)) * 2);
    } catch (NoSuchFileException e) {
      return -1;
    }
    return valueOf(bytes, files, lockId);
  }

  /**
   * The value of a counter file's bytes (at least its first two slots).
   *
   * @throws LockProviderException when they hold no valid slot
   */
  static long valueOf(byte[] bytes, LockFileNames.LockFiles files, String lockId) {
    if (startsWith(bytes, LEGACY_HEADER + "\n")) {
      return legacyValue(bytes, files, lockId);
    }
    return decode(bytes, files, lockId, slotLength(lockId)).value();
  }

  /** A new random stamp: 32 hex digits. */
  static String newStamp() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return HexFormat.of().toHexDigits(random.nextLong())
        + HexFormat.of().toHexDigits(random.nextLong());
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

  static int slotLength(String lockId) {
    return slot(lockId, 0, 0).length;
  }

  /** The content of a new counter file: slot 0 holding {@code token}, then the stamp. */
  static byte[] newFile(String lockId, long token, String stamp) {
    return slotWithStamp(lockId, 0, token, stamp);
  }

  private static byte[] stampBytes(String stamp) {
    byte[] bytes = ("stamp=" + stamp + "\n").getBytes(StandardCharsets.US_ASCII);
    if (bytes.length != STAMP_LENGTH) {
      throw new IllegalArgumentException("a stamp is 32 hex digits, was '" + stamp + "'");
    }
    return bytes;
  }

  /**
   * Whether the file now at the counter's name carries {@code stamp} at {@code position}; {@code
   * false} when there is no file.
   */
  static boolean holdsStamp(LockFileNames.LockFiles files, long position, String stamp)
      throws IOException {
    byte[] found;
    try (FileChannel open = FileChannel.open(files.fence(), StandardOpenOption.READ)) {
      found = readUpTo(open, position, STAMP_LENGTH);
    } catch (NoSuchFileException e) {
      return false;
    }
    return Arrays.equals(found, stampBytes(stamp));
  }

  /**
   * A counter's value and the slot that holds it.
   *
   * @param value the counter's value
   * @param slot the slot holding it, or -1 for a file in the earlier one-record format
   */
  record Decoded(long value, int slot) {
    /** Whether the file has the earlier one-record format, which cannot be updated in place. */
    boolean legacy() {
      return slot < 0;
    }
  }

  /**
   * Reads the counter file open as {@code channel}: its value and the slot that holds it.
   *
   * @throws LockProviderException when the file has no valid slot
   */
  static Decoded read(FileChannel channel, LockFileNames.LockFiles files, String lockId)
      throws IOException {
    int slotLength = slotLength(lockId);
    byte[] bytes = readUpTo(channel, 0, (int) stride(slotLength) * 2);
    if (startsWith(bytes, LEGACY_HEADER + "\n")) {
      return new Decoded(legacyValue(bytes, files, lockId), -1);
    }
    return decode(bytes, files, lockId, slotLength);
  }

  /** The bytes of one slot followed by {@code stamp}, as an in-place update writes them. */
  static byte[] slotWithStamp(String lockId, int index, long token, String stamp) {
    byte[] slot = slot(lockId, index, token);
    byte[] stampBytes = stampBytes(stamp);
    byte[] bytes = Arrays.copyOf(slot, slot.length + stampBytes.length);
    System.arraycopy(stampBytes, 0, bytes, slot.length, stampBytes.length);
    return bytes;
  }

  private static Decoded decode(
      byte[] bytes, LockFileNames.LockFiles files, String lockId, int slotLength) {
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
    return new Decoded(best, bestSlot);
  }

  private static long legacyValue(byte[] bytes, LockFileNames.LockFiles files, String lockId) {
    try {
      Map<String, String> fields = LockRecord.KeyValueText.open(bytes, LEGACY_HEADER);
      checkLockId(fields, lockId);
      return token(fields);
    } catch (LockRecord.KeyValueText.MalformedException e) {
      throw unreadable(files, lockId, "the file (format 1): " + e.getMessage());
    }
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
          "it belongs to lock id " + LockIdText.quoted(id) + ", not " + LockIdText.quoted(lockId));
    }
  }

  private static LockProviderException unreadable(
      LockFileNames.LockFiles files, String lockId, String problem) {
    return new LockProviderException(
        "Fencing counter file "
            + files.fence()
            + " has no valid slot ("
            + problem
            + "); lock "
            + LockIdText.quoted(lockId)
            + " cannot be granted without risking a repeated fencing token, so it is not reset"
            + " to 0. Restore the file from a backup, or replace it with a counter above every"
            + " token issued so far (see 'Repairing a fencing counter' in the locking-file"
            + " README).");
  }

  private static boolean startsWith(byte[] bytes, String prefix) {
    byte[] expected = prefix.getBytes(StandardCharsets.UTF_8);
    return bytes.length >= expected.length
        && Arrays.equals(bytes, 0, expected.length, expected, 0, expected.length);
  }

  private static byte[] readUpTo(FileChannel channel, long position, int limit) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(limit);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, position + buffer.position()) < 0) {
        break;
      }
    }
    return Arrays.copyOf(buffer.array(), buffer.position());
  }
}
