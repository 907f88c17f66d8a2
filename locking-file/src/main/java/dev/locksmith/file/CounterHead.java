package dev.locksmith.file;

import dev.locksmith.core.LockProviderException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first bytes of a counter file that prune finds in the directory (a counter, or one taken
 * away), and what they say: the lock id the file names and the value it holds, or that it is
 * unreadable and left as it is.
 */
final class CounterHead {
  // Logged under the maintenance's name, as operators configure it.
  private static final Logger LOG = LoggerFactory.getLogger(FileLockMaintenance.class);
  private static final int LENGTH = CounterFile.BLOCK * 4;
  // How far prune reads for a lock id's line: ids longer than this are left to an operator.
  private static final int LONGEST_HEAD = 64 << 20;

  private CounterHead() {}

  /**
   * The first bytes of a file, enough for both slots of a lock id up to about 4,000 characters, and
   * for a longer id's line at least (read on to its end, up to {@link #LONGEST_HEAD}), or {@code
   * null} when it is gone.
   */
  static byte @Nullable [] read(Path file) throws IOException {
    try (var in = Files.newInputStream(file)) {
      byte[] head = in.readNBytes(LENGTH);
      if (head.length < LENGTH || newlines(head) >= 2) {
        return head;
      }
      ByteArrayOutputStream longer = new ByteArrayOutputStream(LENGTH * 2);
      longer.write(head);
      byte[] chunk;
      do {
        chunk = in.readNBytes(LENGTH);
        longer.write(chunk);
      } while (chunk.length == LENGTH && newlines(chunk) == 0 && longer.size() < LONGEST_HEAD);
      return longer.toByteArray();
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  private static int newlines(byte[] bytes) {
    int count = 0;
    for (byte b : bytes) {
      if (b == '\n') {
        count++;
      }
    }
    return count;
  }

  /**
   * The lock id a counter file names in its first record (either format), or {@code null} when it
   * does not start like one.
   */
  static @Nullable String lockIdOf(byte[] head) {
    String text = new String(head, StandardCharsets.UTF_8);
    String[] lines = text.split("\n", 3);
    if (lines.length < 3
        || !(lines[0].equals(CounterFile.HEADER) || lines[0].equals(CounterFile.LEGACY_HEADER))
        || !lines[1].startsWith("lock-id=")) {
      return null;
    }
    try {
      return LockRecord.KeyValueText.unescape(lines[1].substring("lock-id=".length()), 2);
    } catch (LockRecord.KeyValueText.MalformedException e) {
      return null;
    }
  }

  /** The counter's value, -1 when it is gone or unreadable (then it is left as it is). */
  static long value(Path file, LockFileNames.LockFiles files, String lockId) throws IOException {
    byte[] head = read(file);
    return head == null ? -1 : value(file, head, files, lockId);
  }

  /** The value of the counter whose first bytes are {@code head}, -1 when it is unreadable. */
  static long value(Path file, byte[] head, LockFileNames.LockFiles files, String lockId)
      throws IOException {
    try {
      if (head.length >= LENGTH
          && 2 * CounterFile.stride(CounterFile.slotLength(lockId)) > LENGTH) {
        return CounterFile.valueAt(file, files, lockId); // a very long lock id
      }
      return CounterFile.valueOf(head, files, lockId);
    } catch (LockProviderException e) {
      LOG.warn("Not pruning {}: {}", file, e.getMessage());
      return -1;
    }
  }
}
