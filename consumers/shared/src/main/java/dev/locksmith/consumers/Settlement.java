package dev.locksmith.consumers;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Settles one account at a time across every instance; a second caller is skipped. The same class
 * in every consumer project: each makes it a bean its own way (or, in plain Java, weaves it).
 */
public class Settlement {
  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  /** Settles an account, holding the lock until {@link #release()}; {@code null} when skipped. */
  @DistributedLock(name = "settle", key = "#account", onBusy = OnBusy.SKIP)
  public String settle(String account) throws InterruptedException {
    entered.countDown();
    if (!release.await(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("not released within 10 s");
    }
    return "settled " + account;
  }

  /** Waits until a call holds the lock. */
  public boolean awaitEntered() throws InterruptedException {
    return entered.await(10, TimeUnit.SECONDS);
  }

  /** Lets the holding call finish. */
  public void release() {
    release.countDown();
  }
}
