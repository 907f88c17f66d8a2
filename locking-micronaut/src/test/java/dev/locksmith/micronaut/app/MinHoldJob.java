package dev.locksmith.micronaut.app;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Locks;
import io.micronaut.context.annotation.Requires;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A scheduled job whose lock ({@value #LOCK}, TTL 30 s) must be held at least {@link #MIN_HOLD}
 * from its grant, while its work takes {@value #WORK_MILLIS} ms; the shutdown test closes the
 * context while it runs. It records when its minimum hold ends as the engine sees it, from the
 * lease's time left at entry ({@link System#nanoTime()}), and when its work ended.
 */
@Singleton
@Requires(env = "handover-minhold")
class MinHoldJob {
  static final String LOCK = "handover-minhold";
  static final Duration TTL = Duration.ofSeconds(30);
  static final Duration MIN_HOLD = Duration.ofSeconds(3);
  static final long WORK_MILLIS = 1500;

  final CountDownLatch entered = new CountDownLatch(1);
  volatile long minHoldEndsAt;
  volatile long endedAt;

  @Scheduled(fixedDelay = "1h", initialDelay = "200ms")
  @DistributedLock(name = LOCK, ttl = "30s", minHold = "3s")
  void work() {
    long now = System.nanoTime();
    // The lease ends TTL after its grant (as the engine counts it), so the grant was at
    // now + timeLeft - TTL, and the minimum hold ends MIN_HOLD after that.
    minHoldEndsAt = now + Locks.current().timeLeft().minus(TTL).plus(MIN_HOLD).toNanos();
    entered.countDown();
    long until = now + TimeUnit.MILLISECONDS.toNanos(WORK_MILLIS);
    for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
      try {
        TimeUnit.NANOSECONDS.sleep(left); // the job's work: time passing while the lock is held
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    endedAt = System.nanoTime();
  }
}
