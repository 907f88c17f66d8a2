package dev.locksmith.tcp.server;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@code server.lock} file that keeps two servers from sharing one data directory. */
final class DataDirLock implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DataDirLock.class);
  private static final String LOCK_FILE = "server.lock";

  private final FileChannel channel;
  private final FileLock lock;

  private DataDirLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes the directory's lock file.
   *
   * @throws IOException when another server holds it, or the file cannot be opened
   */
  static DataDirLock acquire(Path dataDir) throws IOException {
    FileChannel channel =
        FileChannel.open(
            dataDir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      channel.close();
      throw new IOException("data directory " + dataDir + " is in use by another lock server");
    }
    return new DataDirLock(channel, lock);
  }

  /** Gives the directory up; logs rather than throws. */
  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      LOG.warn("Cannot release the data directory lock: {}", e.toString());
    }
  }
}
