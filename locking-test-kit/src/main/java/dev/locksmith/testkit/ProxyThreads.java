package dev.locksmith.testkit;

import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads of one {@link FaultProxy}: daemons named after its port, each forgotten when it ends,
 * and joined (for a while) when the proxy closes.
 */
final class ProxyThreads {
  private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
  private static final long CLOSE_JOIN_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final String proxy;
  private final String prefix;
  private final Set<Thread> threads = ConcurrentHashMap.newKeySet();

  /**
   * The threads of the proxy that {@code proxy} names in log messages, each named {@code prefix}
   * followed by what it does.
   */
  ProxyThreads(String proxy, String prefix) {
    this.proxy = proxy;
    this.prefix = prefix;
  }

  /** Starts a daemon thread running {@code body}; a failure it throws is logged. */
  void start(String name, Runnable body) {
    Thread thread =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (RuntimeException | Error e) {
                LOG.error("{}: thread {} failed", proxy, Thread.currentThread().getName(), e);
              } finally {
                threads.remove(Thread.currentThread());
              }
            },
            prefix + name);
    thread.setDaemon(true);
    threads.add(thread);
    thread.start();
  }

  /**
   * Waits up to five seconds in all for every thread but the caller's to end, logging those that
   * did not; returns at once, interrupted again, when interrupted.
   */
  void joinAll() {
    long deadline = System.nanoTime() + CLOSE_JOIN_NANOS;
    for (Thread thread : new ArrayList<>(threads)) {
      if (thread == Thread.currentThread()) {
        continue;
      }
      long left = deadline - System.nanoTime();
      try {
        if (left > 0) {
          TimeUnit.NANOSECONDS.timedJoin(thread, left);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (thread.isAlive()) {
        LOG.warn("{}: thread {} did not end", proxy, thread.getName());
      }
    }
  }
}
