package dev.locksmith.benchmarks.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hand-off latency on one hot key: contenders, each with a client (and so a connection) of its own
 * as separate processes would have, take turns on one lock. A holder keeps the lock for a short
 * hold, so that the others are parked waiting, then notes the time and releases; the latency is
 * from just before that release call to the moment another contender's acquire returns. After
 * releasing, a holder waits until someone else has taken the lock before competing again, so every
 * turn is a real hand-off to a parked waiter, not the releaser barging back in.
 *
 * <p>It also checks mutual exclusion: a contender that acquires while another is inside counts a
 * violation.
 */
final class Handoff {
  private static final Logger LOG = LoggerFactory.getLogger(Handoff.class);
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String KEY = "hot";

  private Handoff() {}

  /**
   * The outcome of one run.
   *
   * @param samples the hand-off latencies measured after warm-up, in nanoseconds
   * @param violations acquisitions that overlapped another holder
   * @param failures acquires that timed out or threw
   * @param seconds how long the run took
   */
  record Outcome(long[] samples, long violations, long failures, double seconds) {
    /** The percentiles of the samples. */
    Percentiles latencies() {
      return Percentiles.of(samples);
    }
  }

  static Outcome run(
      List<LockClient> clients, Duration hold, int warmup, int samples, Duration maxTime)
      throws InterruptedException {
    HandoffTurns turns = new HandoffTurns(warmup, samples);
    AtomicReference<@Nullable Throwable> firstError = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < clients.size(); i++) {
      int id = i;
      LockClient client = clients.get(i);
      Thread thread =
          new Thread(() -> contend(id, client, hold, turns, firstError), "handoff-" + id);
      thread.setDaemon(true);
      threads.add(thread);
    }
    long start = System.nanoTime();
    threads.forEach(Thread::start);
    boolean complete = turns.done.await(maxTime.toMillis(), TimeUnit.MILLISECONDS);
    turns.stop();
    for (Thread thread : threads) {
      thread.join(WAIT.toMillis() * 2);
      if (thread.isAlive()) {
        LOG.warn("{} did not stop; left running as a daemon", thread.getName());
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (!complete) {
      LOG.info("time bound of {} s reached with {} samples", maxTime.toSeconds(), turns.count());
    }
    Throwable error = firstError.get();
    if (error != null) {
      LOG.warn("{} failures, first: {}", turns.failures.get(), error.toString());
    }
    return new Outcome(turns.samples(), turns.violations.get(), turns.failures.get(), seconds);
  }

  private static void contend(
      int id,
      LockClient client,
      Duration hold,
      HandoffTurns turns,
      AtomicReference<@Nullable Throwable> firstError) {
    while (!turns.stopped()) {
      LockClient.Held held;
      try {
        held = client.acquire(KEY, WAIT);
      } catch (Exception e) {
        turns.failures.incrementAndGet();
        firstError.compareAndSet(null, e);
        continue;
      }
      if (held == null) {
        turns.failures.incrementAndGet();
        continue;
      }
      long acquiredAt = System.nanoTime();
      long generation = turns.acquired(id, acquiredAt);
      if (!turns.stopped()) {
        LockSupport.parkNanos(hold.toNanos()); // the holder's work
      }
      turns.leaving();
      try {
        held.release();
      } catch (Exception e) {
        turns.failures.incrementAndGet();
        firstError.compareAndSet(null, e);
      }
      turns.awaitOtherHolder(generation, WAIT.toNanos());
    }
  }
}
