package dev.locksmith.spring.zookeeper;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.spring.HeldJob;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;

/** A job that holds its lock until told to end; skipped (null) while another holds it. */
public class Jobs {
  /** Runs under lock {@code zk-job}, returning its id, or null when skipped. */
  @DistributedLock(name = "zk-job", onBusy = OnBusy.SKIP)
  public @Nullable String run(CountDownLatch entered, CountDownLatch release) {
    return HeldJob.holdUntilReleased(entered, release);
  }
}
