package dev.locksmith.file;

import dev.locksmith.core.spi.OwnerTokens;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
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
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The file operations the protocol is built from: atomic create-new, read with attributes, atomic
 * rename, write-to-temp-then-link (never replacing a file), and access to the fencing counter.
 * Every created file gets the configured permissions explicitly, so the umask does not change them.
 */
final class LockDirectory {
  private static final Set<StandardOpenOption> CREATE_NEW =
      EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);

  /**
   * Longer than any lock record this provider writes beside its lock id; a longer file is not one.
   */
  private static final long MAX_RECORD = 1 << 20;

  /** The most bytes a lock id's char takes in a record: an escape of six characters. */
  private static final long MAX_BYTES_PER_ID_CHAR = 6;

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
   * Writes {@code bytes} to a unique temporary file and links it in at {@code target}, which it
   * never replaces: {@code false} when {@code target} exists. Readers see no file or the whole new
   * one, never a part of it. With {@code sync} the file and then the directory are forced.
   */
  boolean publish(LockFileNames.LockFiles files, Path target, byte[] bytes) throws IOException {
    Path temp = files.temp(OwnerTokens.newToken());
    try {
      FileChannel channel = createNew(temp);
      if (channel == null) {
        throw new IOException("temporary file " + temp + " exists already");
      }
      try (channel) {
        write(channel, bytes);
      }
      if (!link(temp, target)) {
        return false;
      }
      if (settings.sync()) {
        forceDirectory();
      }
      return true;
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * Makes {@code link} a second name of the file {@code existing}; {@code false} when {@code link}
   * exists (it is never replaced).
   *
   * @throws IOException also when the file system has no hard links, which this provider needs
   */
  boolean link(Path existing, Path link) throws IOException {
    try {
      Files.createLink(link, existing);
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    } catch (UnsupportedOperationException e) {
      throw new IOException(
          "the file system of " + link + " has no hard links, which the file provider needs", e);
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

  /**
   * What tells the file at {@code path} from every other file (on Unix its device and inode), or
   * {@code null} when it does not exist or the file system gives files no such key.
   */
  @Nullable Object fileKey(Path path) throws IOException {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
    } catch (NoSuchFileException e) {
      return null;
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

  /**
   * Reads a lock file's record without its attributes, or {@code null} when the file does not exist
   * or does not parse. Enough where only the caller's own record matters (release).
   */
  @Nullable LockRecord readRecord(Path path) throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(path);
    } catch (NoSuchFileException e) {
      return null;
    }
    try {
      return LockRecord.decode(bytes);
    } catch (LockRecord.KeyValueText.MalformedException e) {
      return null;
    }
  }

  /** Opens an existing file for reading and writing, or {@code null} when it does not exist. */
  @Nullable FileChannel openExisting(Path path) throws IOException {
    try {
      return FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /**
   * Reads the record of lock {@code lockId} through an open channel, from its start; {@code null}
   * when it does not parse, or is longer than any record of that lock id could be.
   */
  @Nullable LockRecord readRecord(FileChannel channel, String lockId) throws IOException {
    long size = channel.size();
    long longest = MAX_RECORD + MAX_BYTES_PER_ID_CHAR * lockId.length();
    if (size > Math.min(longest, Integer.MAX_VALUE - 8)) {
      return null;
    }
    ByteBuffer buffer = ByteBuffer.allocate((int) size);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, buffer.position()) < 0) {
        break;
      }
    }
    try {
      return LockRecord.decode(Arrays.copyOf(buffer.array(), buffer.position()));
    } catch (LockRecord.KeyValueText.MalformedException e) {
      return null;
    }
  }

  /**
   * Overwrites the whole content of an open file in place: {@code bytes} from its start, then
   * truncated to their length (forced with {@code sync}). A concurrent reader may see a mix of old
   * and new bytes, which a sealed record rejects as garbled.
   */
  void rewrite(FileChannel channel, byte[] bytes) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      channel.write(buffer, buffer.position());
    }
    channel.truncate(bytes.length);
    if (settings.sync()) {
      channel.force(true);
    }
  }

  /**
   * Deletes a file that should exist: one {@code unlink} ({@link java.io.File#delete()}), and only
   * when that fails the NIO call, which names the reason (or finds the file gone).
   */
  void delete(Path path) throws IOException {
    if (!path.toFile().delete()) {
      Files.deleteIfExists(path);
    }
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
   * Opens the fencing counter of a lock as it is now, without reading it; see {@link
   * FencingCounter}.
   */
  FencingCounter openCounter(LockFileNames.LockFiles files, String lockId) throws IOException {
    return FencingCounter.open(this, files, lockId);
  }

  /**
   * Forces the directory's entries to storage (where the platform can open a directory), so a newly
   * renamed-in file survives a power loss.
   */
  void forceDirectory() throws IOException {
    try (FileChannel channel = FileChannel.open(settings.directory(), StandardOpenOption.READ)) {
      channel.force(true);
    } catch (UnsupportedOperationException | AccessDeniedException e) {
      // Windows-like platforms cannot open a directory; their rename is durable on its own.
    }
  }

  /** Whether writes are forced to storage before they count. */
  boolean sync() {
    return settings.sync();
  }

  private void applyPermissions(Path path) throws IOException {
    Set<PosixFilePermission> permissions = settings.permissions();
    if (permissions != null) {
      Files.setPosixFilePermissions(path, permissions);
    }
  }
}
