package dev.locksmith.benchmarks.load;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The shared record of a hot-key hand-off run: who held last, when it released, the hand-off
 * latencies (release call to the next holder's grant), and overlapping holders. Contenders call
 * {@link #acquired} when their acquire returns, {@link #leaving} just before they release, then
 * {@link #awaitOtherHolder} so that every sample is a hand-off to a parked waiter.
 */
public final class HandoffTurns {
  /** Counted down when every sample is in. */
  public final CountDownLatch done = new CountDownLatch(1);

  /** Acquisitions while another contender held the lock (must stay 0). */
  public final AtomicLong violations = new AtomicLong();

  /** Failed acquire or release calls. */
  public final AtomicLong failures = new AtomicLong();

  private final AtomicInteger inside = new AtomicInteger();
  private final AtomicInteger handoffs = new AtomicInteger();
  private final ReentrantLock mutex = new ReentrantLock();
  private final Condition changed = mutex.newCondition();
  private final int warmup;
  private final long[] samples;
  private volatile int lastHolder = -1;
  private volatile long releasedAt;
  private volatile boolean stopped;
  private long generation;

  /** Keeps {@code samples} hand-offs after the first {@code warmup}. */
  public HandoffTurns(int warmup, int samples) {
    this.warmup = warmup;
    this.samples = new long[samples];
  }

  /** Records an acquisition at {@code now}; returns the turn's generation. */
  public long acquired(int id, long now) {
    if (inside.incrementAndGet() != 1) {
      violations.incrementAndGet();
    }
    int previous = lastHolder;
    if (previous >= 0 && previous != id) {
      record(now - releasedAt);
    }
    lastHolder = id;
    mutex.lock();
    try {
      generation++;
      changed.signalAll();
      return generation;
    } finally {
      mutex.unlock();
    }
  }

  /** The holder is about to release: the hand-off clock starts. */
  public void leaving() {
    inside.decrementAndGet();
    releasedAt = System.nanoTime();
  }

  private void record(long latency) {
    int index = handoffs.getAndIncrement() - warmup;
    if (index >= 0 && index < samples.length) {
      samples[index] = latency;
      if (index == samples.length - 1) {
        done.countDown();
      }
    }
  }

  /** Waits up to {@code nanos} until a turn after {@code seen} began, or the run stopped. */
  public void awaitOtherHolder(long seen, long nanos) {
    mutex.lock();
    try {
      long left = nanos;
      while (generation == seen && !stopped && left > 0) {
        left = changed.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      mutex.unlock();
    }
  }

  /** Ends the run: waiting contenders return. */
  public void stop() {
    mutex.lock();
    try {
      stopped = true;
      changed.signalAll();
    } finally {
      mutex.unlock();
    }
  }

  /** Whether the run ended. */
  public boolean stopped() {
    return stopped;
  }

  /** How many samples are in. */
  public int count() {
    return Math.max(0, Math.min(samples.length, handoffs.get() - warmup));
  }

  /** The samples so far, in nanoseconds. */
  public long[] samples() {
    return Arrays.copyOf(samples, count());
  }
}
