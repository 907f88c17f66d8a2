package dev.locksmith.file;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;

/**
 * When a file in a lock directory was last written or renamed, the time a leftover's age counts
 * from: a tomb or a counter taken away keeps the time its content was written, which may be long
 * ago, while the process that has just moved it is about to read it.
 */
final class LastTouched {
  private final boolean statusTimes;

  LastTouched(Path directory) {
    this.statusTimes = directory.getFileSystem().supportedFileAttributeViews().contains("unix");
  }

  /**
   * The later of the file's modification time and its status time (ctime), which a rename changes
   * on the file systems locks are kept on; where no {@code unix} view gives it, only the former.
   */
  long millis(Path file, BasicFileAttributes attributes) throws IOException {
    long modified = attributes.lastModifiedTime().toMillis();
    if (!statusTimes) {
      return modified;
    }
    try {
      Object changed = Files.getAttribute(file, "unix:ctime");
      return changed instanceof FileTime time ? Math.max(modified, time.toMillis()) : modified;
    } catch (NoSuchFileException e) {
      // Gone meanwhile: deleting it again does nothing.
      return modified;
    }
  }
}
