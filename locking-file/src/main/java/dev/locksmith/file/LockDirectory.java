package dev.locksmith.file;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.OwnerTokens;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The file operations the protocol is built from: atomic create-new, read with attributes, atomic
 * rename, write-to-temp-then-rename, and the fencing counter. Every created file gets the
 * configured permissions explicitly, so the umask does not change them.
 */
final class LockDirectory {
  static final String FENCE_HEADER = "locksmith-fence 1";
  private static final Set<StandardOpenOption> CREATE_NEW =
      EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);

  private final FileLockSettings settings;
  private final FileAttribute<?>[] createAttributes;

  LockDirectory(FileLockSettings settings) {
    this.settings = settings;
    Set<PosixFilePermission> permissions = settings.permissions();
    this.createAttributes =
        permissions == null
            ? new FileAttribute<?>[0]
            : new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(permissions)};
  }

  Path path() {
    return settings.directory();
  }

  /**
   * Creates {@code path} with {@code O_CREAT|O_EXCL} and returns the open channel, or {@code null}
   * when the file exists. The channel keeps writing to the created file even if it is renamed.
   */
  @Nullable FileChannel createNew(Path path) throws IOException {
    try {
      FileChannel channel = FileChannel.open(path, CREATE_NEW, createAttributes);
      try {
        applyPermissions(path);
      } catch (IOException | RuntimeException e) {
        channel.close();
        Files.deleteIfExists(path);
        throw e;
      }
      return channel;
    } catch (FileAlreadyExistsException e) {
      return null;
    }
  }

  /** Creates an empty file with create-new; {@code false} when it exists. */
  boolean createEmpty(Path path) throws IOException {
    FileChannel channel = createNew(path);
    if (channel == null) {
      return false;
    }
    channel.close();
    return true;
  }

  void write(FileChannel channel, byte[] bytes) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
    if (settings.sync()) {
      channel.force(true);
    }
  }

  /**
   * Writes {@code bytes} to a unique temporary file and renames it over {@code target} atomically,
   * so readers see the old or the new content, never a mix.
   */
  void replace(LockFileNames.LockFiles files, Path target, byte[] bytes) throws IOException {
    Path temp = files.temp(OwnerTokens.newToken());
    try {
      FileChannel channel = createNew(temp);
      if (channel == null) {
        throw new IOException("temporary file " + temp + " exists already");
      }
      try (channel) {
        write(channel, bytes);
      }
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * Renames {@code from} to {@code to} atomically; {@code false} when {@code from} no longer
   * exists.
   */
  boolean moveAway(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
      return true;
    } catch (NoSuchFileException e) {
      if (Files.exists(to)) {
        throw e;
      }
      return false;
    }
  }

  /** Reads a lock file with its attributes, or {@code null} when it does not exist. */
  @Nullable Observed read(Path path) throws IOException {
    BasicFileAttributes attributes;
    byte[] bytes;
    try {
      attributes = Files.readAttributes(path, BasicFileAttributes.class);
      bytes = Files.readAllBytes(path);
    } catch (NoSuchFileException e) {
      return null;
    }
    Object key = attributes.fileKey();
    return Observed.of(
        path,
        bytes,
        attributes.lastModifiedTime().toMillis(),
        attributes.size(),
        key == null ? "" : key.toString());
  }

  /** The age of a file by its modification time, or {@code -1} when it does not exist. */
  long ageMillis(Path path, long nowMillis) throws IOException {
    try {
      return nowMillis - Files.getLastModifiedTime(path).toMillis();
    } catch (NoSuchFileException e) {
      return -1;
    }
  }

  /**
   * The last fencing token granted for a lock, 0 when none was.
   *
   * @throws LockProviderException when the counter file is unreadable: counting again from 0 could
   *     repeat tokens, so the lock stays unavailable until an operator fixes or removes the file
   */
  long readCounter(LockFileNames.LockFiles files, String lockId) throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(files.fence());
    } catch (NoSuchFileException e) {
      return 0;
    }
    try {
      Map<String, String> fields = LockRecord.KeyValueText.open(bytes, FENCE_HEADER);
      String id = LockRecord.KeyValueText.text(fields, "lock-id");
      if (!id.equals(lockId)) {
        throw new LockRecord.KeyValueText.MalformedException(
            "it belongs to lock id '" + id + "', not '" + lockId + "'");
      }
      return LockRecord.KeyValueText.number(fields, "last-token");
    } catch (LockRecord.KeyValueText.MalformedException e) {
      throw new LockProviderException(
          "Fencing counter file "
              + files.fence()
              + " is unreadable ("
              + e.getMessage()
              + "); lock '"
              + lockId
              + "' cannot be granted without risking a repeated fencing token. Restore the file,"
              + " or write a counter above every token issued so far:\n"
              + new String(counterBytes(lockId, Long.MAX_VALUE / 2), StandardCharsets.UTF_8)
                  .replace(Long.toString(Long.MAX_VALUE / 2), "<last token>"));
    }
  }

  /** Persists the last granted fencing token; only the current holder calls this. */
  void writeCounter(LockFileNames.LockFiles files, String lockId, long token) throws IOException {
    replace(files, files.fence(), counterBytes(lockId, token));
  }

  private static byte[] counterBytes(String lockId, long token) {
    StringBuilder text = new StringBuilder(128).append(FENCE_HEADER).append('\n');
    text.append("lock-id=").append(LockRecord.KeyValueText.escape(lockId)).append('\n');
    text.append("last-token=").append(token).append('\n');
    return LockRecord.KeyValueText.seal(text);
  }

  private void applyPermissions(Path path) throws IOException {
    Set<PosixFilePermission> permissions = settings.permissions();
    if (permissions != null) {
      Files.setPosixFilePermissions(path, permissions);
    }
  }
}
