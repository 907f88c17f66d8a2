package dev.locksmith.file;

import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.OwnerTokens;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removing a lock file safely: rename it to a unique tomb, read what moved, and delete it only if
 * it is the file meant; otherwise put it back with {@code link}, which fails rather than overwrite
 * a lock file created meanwhile. A take-over, a release and an acquisition cleaning up after a
 * failure all remove lock files this way.
 */
final class Tombs {
  /** For {@link #removeOwn}: any record of the owner token, whatever its fencing token. */
  static final long ANY_TOKEN = -1;

  // Logged under the provider's name, as operators configure it.
  private static final Logger LOG = LoggerFactory.getLogger(FileLockProvider.class);

  private final LockDirectory directory;
  private final Supplier<TestHooks> hooks;

  Tombs(LockDirectory directory, Supplier<TestHooks> hooks) {
    this.directory = directory;
    this.hooks = hooks;
  }

  /**
   * Renames the lock file to a unique tomb, reads the tomb and deletes it if it holds the given
   * lease ({@code token} {@link #ANY_TOKEN}: any record of this owner token); otherwise puts it
   * back. {@code false} when the file was not the lease's (or was gone).
   */
  boolean removeOwn(LockFileNames.LockFiles files, String lockId, String ownerToken, long token)
      throws IOException {
    Path tomb = files.tomb(OwnerTokens.newToken());
    if (!directory.moveAway(files.lock(), tomb)) {
      return false;
    }
    LockRecord moved;
    try {
      hooks.get().afterTombMove(lockId);
      moved = directory.readRecord(tomb);
    } catch (IOException | RuntimeException e) {
      // Unknown whose: back under the name, safe either way. Left in the tomb, another holder's
      // file would free the lock under that holder, and the caller's would stay there for good.
      restore(files.lock(), tomb);
      throw e;
    }
    boolean own =
        moved != null
            && (token == ANY_TOKEN
                ? moved.lockId().equals(lockId) && moved.ownerToken().equals(ownerToken)
                : moved.heldBy(lockId, ownerToken, token));
    if (!own) {
      LOG.error(
          "Removing lock {} moved another holder's file (clock skew above the allowance?);"
              + " putting it back",
          LockIdText.quoted(lockId));
      restore(files.lock(), tomb);
      return false;
    }
    directory.delete(tomb);
    return true;
  }

  /**
   * Removes the lock file this caller created, known by its file key: only while the name still
   * holds that file, so that another holder's file created at the name after a take-over is never
   * moved away, and, once moved, only if it holds this caller's record or none (the record never
   * reached the share), as a file system may give a deleted file's key to a new one. {@code false}
   * when the name holds another file or none.
   */
  boolean removeCreated(
      LockFileNames.LockFiles files, String lockId, String ownerToken, Object createdKey)
      throws IOException {
    if (!createdKey.equals(directory.fileKey(files.lock()))) {
      return false;
    }
    Path tomb = files.tomb(OwnerTokens.newToken());
    if (!directory.moveAway(files.lock(), tomb)) {
      return false;
    }
    LockRecord moved;
    try {
      moved = directory.readRecord(tomb);
    } catch (IOException | RuntimeException e) {
      restore(files.lock(), tomb); // unknown whose: back under the name, safe either way
      throw e;
    }
    if (!createdKey.equals(directory.fileKey(tomb))
        || (moved != null && !moved.ownerToken().equals(ownerToken))) {
      LOG.error(
          "Removing the lock file of a failed acquisition of {} moved another holder's file (a"
              + " process stalled past its checks?); putting it back",
          LockIdText.quoted(lockId));
      restore(files.lock(), tomb);
      return false;
    }
    directory.delete(tomb);
    return true;
  }

  /** Puts a wrongly moved lock file back unless the name has been taken again meanwhile. */
  void restore(Path lock, Path tomb) throws IOException {
    try {
      Files.createLink(lock, tomb);
    } catch (FileAlreadyExistsException e) {
      LOG.error("Could not put {} back: a new lock file was created meanwhile", lock);
    } catch (UnsupportedOperationException e) {
      LOG.error("Could not put {} back: the file system has no hard links", lock);
    } finally {
      Files.deleteIfExists(tomb);
    }
  }
}
