package dev.locksmith.benchmarks.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lock+unlock cycles per second of many threads sharing one client, each thread on a key of its
 * own: the cost of the lock system itself, without contention. Runs for a fixed warm-up and
 * measurement window and stops by itself.
 */
final class Throughput {
  private static final Logger LOG = LoggerFactory.getLogger(Throughput.class);
  private static final Duration WAIT = Duration.ofSeconds(5);

  private Throughput() {}

  /** One measured window: cycles per second, and how many cycles failed. */
  record Window(double cyclesPerSecond, long failures) {}

  static Window measure(
      LockClient client, String keyPrefix, int threads, Duration warmup, Duration window)
      throws InterruptedException {
    LongAdder cycles = new LongAdder();
    AtomicLong failures = new AtomicLong();
    AtomicReference<@Nullable Throwable> firstError = new AtomicReference<>();
    Stop stop = new Stop();
    List<Thread> workers = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      String key = keyPrefix + "-" + i;
      Thread worker =
          new Thread(
              () -> {
                while (!stop.requested) {
                  try {
                    LockClient.Held held = client.acquire(key, WAIT);
                    if (held == null) {
                      failures.incrementAndGet();
                      continue;
                    }
                    held.release();
                    cycles.increment();
                  } catch (Exception e) {
                    failures.incrementAndGet();
                    firstError.compareAndSet(null, e);
                  }
                }
              },
              "throughput-" + i);
      worker.setDaemon(true);
      workers.add(worker);
    }
    workers.forEach(Thread::start);
    // The harness times a window on the wall clock; nothing here waits for another thread's work.
    Thread.sleep(warmup.toMillis());
    long startCycles = cycles.sum();
    long startNanos = System.nanoTime();
    Thread.sleep(window.toMillis());
    long endCycles = cycles.sum();
    long endNanos = System.nanoTime();
    stop.requested = true;
    for (Thread worker : workers) {
      worker.join(WAIT.toMillis() * 2);
      if (worker.isAlive()) {
        LOG.warn("{} did not stop; left running as a daemon", worker.getName());
      }
    }
    Throwable error = firstError.get();
    if (error != null) {
      LOG.warn("{} failures on {}, first: {}", failures.get(), keyPrefix, error.toString());
    }
    double seconds = (endNanos - startNanos) / 1e9;
    return new Window((endCycles - startCycles) / seconds, failures.get());
  }

  private static final class Stop {
    volatile boolean requested;
  }
}
