package dev.locksmith.tcp.server;

import io.netty.channel.EventLoop;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a running server keeps on disk: its fencing sequence, its {@link LeaseHorizon} and, with a
 * data directory, the directory's {@code server.lock}, taken before the sequence reads its mark and
 * given up only after the sequence has written its last one.
 */
final class DataDirectory {
  private static final Logger LOG = LoggerFactory.getLogger(LockServer.class);

  private final @Nullable DataDirLock lock;
  private final FencingSequence sequence;
  private final LeaseHorizon horizon;

  private DataDirectory(
      @Nullable DataDirLock lock, FencingSequence sequence, LeaseHorizon horizon) {
    this.lock = lock;
    this.sequence = sequence;
    this.horizon = horizon;
  }

  /**
   * Creates the directory if needed, locks it and opens the fencing sequence from its mark (from
   * the clock alone without a directory). When the mark a crash left is still ahead of the clock,
   * first waits for the clock to pass it (at most {@code fencingBlock} microseconds).
   *
   * @throws IOException when the directory cannot be made or locked (another server uses it), or
   *     the mark or the lease horizon cannot be read
   */
  static DataDirectory open(@Nullable Path dataDir, long fencingBlock) throws IOException {
    DataDirLock lock = null;
    try {
      if (dataDir != null) {
        Files.createDirectories(dataDir);
        lock = DataDirLock.acquire(dataDir);
      }
      LeaseHorizon horizon = LeaseHorizon.open(dataDir);
      return new DataDirectory(lock, FencingSequence.open(dataDir, fencingBlock), horizon);
    } catch (IOException | RuntimeException e) {
      if (lock != null) {
        lock.close();
      }
      throw e;
    }
  }

  FencingSequence sequence() {
    return sequence;
  }

  LeaseHorizon horizon() {
    return horizon;
  }

  /**
   * After the tasks already queued on the core thread (closed connections' releases and hand-offs),
   * closes the sequence there, which lowers the stored mark to the last token, and the lease
   * horizon, which it lowers to the leases still held, and only then gives up the directory:
   * nothing of this server writes the mark after that. When the core thread is gone, gives up the
   * directory at once; when it stays busy for 5 s, warns and returns, and the directory stays
   * locked until the queued close has run (or the process ends): a server started on it meanwhile
   * is refused rather than having its mark lowered by this one's late write.
   *
   * @param core the thread that hands out tokens; null when the server never got to start it
   * @param latestLeftMillis how long the last of the leases still held has left, asked on the core
   *     thread
   */
  void close(@Nullable EventLoop core, LongSupplier latestLeftMillis) {
    if (core != null) {
      try {
        boolean closedOnCore =
            core.submit(
                    () -> {
                      try {
                        sequence.close();
                        horizon.close(latestLeftMillis.getAsLong());
                      } finally {
                        releaseLock();
                      }
                    })
                .awaitUninterruptibly(5, TimeUnit.SECONDS);
        if (!closedOnCore) {
          LOG.warn(
              "Lock server core thread still busy; its data directory stays locked until done");
        }
        return; // the queued close gives the directory up
      } catch (RejectedExecutionException e) {
        LOG.debug("Lock server core thread gone; giving up its data directory now", e);
      }
    }
    releaseLock();
  }

  private void releaseLock() {
    if (lock != null) {
      lock.close();
    }
  }
}
