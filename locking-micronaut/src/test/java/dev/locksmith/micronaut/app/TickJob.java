package dev.locksmith.micronaut.app;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import io.micronaut.context.annotation.Requires;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A job every two seconds that many application instances run, and that must run once per tick: the
 * first instance holds the lock for 1.5 s, so the others, firing within that, skip.
 */
@Singleton
@Requires(env = "ticks")
class TickJob {
  final Queue<Long> runs = new ConcurrentLinkedQueue<>();

  @Scheduled(cron = "*/2 * * * * *")
  @DistributedLock(name = "tick", onBusy = OnBusy.SKIP, minHold = "1500ms")
  void tick() {
    runs.add(System.currentTimeMillis());
  }

  /** Counts the ticks on which this instance found the lock held. */
  @Singleton
  @Requires(env = "ticks")
  static final class Skips implements LockListener {
    final AtomicInteger count = new AtomicInteger();

    @Override
    public void busy(LockEvent event) {
      if (event.name().equals("tick")) {
        count.incrementAndGet();
      }
    }
  }
}
