package dev.locksmith.file;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes waiters early when a lock file disappears from the directory. Only changes made through
 * this host's kernel are seen (a watch on NFS misses other hosts), so waiters always poll too; the
 * watcher only shortens the wait. Started on the first wait, stopped by {@link #close()}. A watch
 * that cannot start (the directory is missing) or ends (the directory was deleted or unmounted) is
 * tried again by a wait at least a second later.
 */
final class DirectoryWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DirectoryWatcher.class);
  private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final Path directory;
  private final boolean enabled;
  private final ReentrantLock mutex = new ReentrantLock();
  private final Condition changed = mutex.newCondition();
  private long generation;
  private boolean started;
  private long retryAtNanos;
  private boolean closed;
  private @Nullable WatchService service;
  private @Nullable Thread thread;

  DirectoryWatcher(Path directory, boolean enabled) {
    this.directory = directory;
    this.enabled = enabled;
    this.retryAtNanos = System.nanoTime();
  }

  /** The current generation; a wait that starts from it ends early on the next change. */
  long generation() {
    mutex.lock();
    try {
      startIfNeeded();
      return generation;
    } finally {
      mutex.unlock();
    }
  }

  /**
   * Waits up to {@code nanos} or until a lock file disappears after {@code seenGeneration}.
   *
   * @throws InterruptedException when interrupted
   */
  void await(long seenGeneration, long nanos) throws InterruptedException {
    mutex.lockInterruptibly();
    try {
      long left = nanos;
      while (generation == seenGeneration && left > 0) {
        left = changed.awaitNanos(left);
      }
    } finally {
      mutex.unlock();
    }
  }

  private void startIfNeeded() {
    if (started || closed || !enabled || System.nanoTime() - retryAtNanos < 0) {
      return;
    }
    started = true;
    WatchService watch = null;
    try {
      watch = directory.getFileSystem().newWatchService();
      directory.register(watch, StandardWatchEventKinds.ENTRY_DELETE);
    } catch (IOException | UnsupportedOperationException e) {
      LOG.debug("No directory watch on {}; waiters poll only: {}", directory, e.toString());
      closeQuietly(watch); // its thread and inotify descriptor would outlive it otherwise
      started = false;
      retryAtNanos = System.nanoTime() + RETRY_NANOS;
      return;
    }
    service = watch;
    WatchService watching = watch;
    Thread t = new Thread(() -> run(watching), "locksmith-file-watch " + directory.getFileName());
    t.setDaemon(true);
    thread = t;
    t.start();
  }

  private static void closeQuietly(@Nullable WatchService watch) {
    if (watch == null) {
      return;
    }
    try {
      watch.close();
    } catch (IOException e) {
      LOG.debug("Closing a watch service that did not start failed", e);
    }
  }

  private void run(WatchService watch) {
    try {
      while (true) {
        WatchKey key = watch.poll(1, TimeUnit.MINUTES);
        if (key == null) {
          continue;
        }
        boolean relevant = false;
        for (WatchEvent<?> event : key.pollEvents()) {
          Object context = event.context();
          relevant |=
              event.kind() == StandardWatchEventKinds.OVERFLOW
                  || (context instanceof Path p
                      && p.toString().endsWith(LockFileNames.LOCK_SUFFIX));
        }
        if (relevant) {
          signal();
        }
        if (!key.reset()) {
          LOG.debug("Directory watch on {} ended; waiters poll until it restarts", directory);
          ended(watch);
          return;
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // closing
    }
  }

  /** The watch ended without {@link #close()}: let a later wait start a new one. */
  private void ended(WatchService watch) {
    mutex.lock();
    try {
      if (service == watch) {
        service = null;
        thread = null;
        started = false;
        retryAtNanos = System.nanoTime() + RETRY_NANOS;
      }
    } finally {
      mutex.unlock();
    }
    try {
      watch.close();
    } catch (IOException e) {
      LOG.debug("Closing the directory watch on {} failed: {}", directory, e.toString());
    }
  }

  private void signal() {
    mutex.lock();
    try {
      generation++;
      changed.signalAll();
    } finally {
      mutex.unlock();
    }
  }

  @Override
  public void close() {
    WatchService watch;
    mutex.lock();
    try {
      closed = true;
      watch = service;
      service = null;
    } finally {
      mutex.unlock();
    }
    if (watch != null) {
      try {
        watch.close();
      } catch (IOException e) {
        LOG.debug("Closing the directory watch on {} failed: {}", directory, e.toString());
      }
    }
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }
}
