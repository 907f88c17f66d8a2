package dev.locksmith.aspectj;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/** Locked methods of every shape, woven at compile time by ajc. */
class Jobs {
  final AtomicInteger runs = new AtomicInteger();

  @DistributedLock(name = "jobs.plain")
  public Lease plain() {
    runs.incrementAndGet();
    return Locks.current();
  }

  @DistributedLock
  public Lease unnamed() {
    return Locks.current();
  }

  /** Not locked itself: calls a locked method on {@code this}. */
  public Lease callsOwnPublic() {
    return plain();
  }

  /** Not locked itself: calls a private locked method. */
  public Lease callsPrivate() {
    return privateLocked();
  }

  @DistributedLock(name = "jobs.private")
  private Lease privateLocked() {
    return Locks.current();
  }

  @DistributedLock(name = "jobs.static")
  public static Lease staticLocked() {
    return Locks.current();
  }

  @DistributedLock(name = "account", key = "#accountId + '/' + #p1")
  public String keyed(String accountId, int slot) {
    return Locks.current().lockId();
  }

  @DistributedLock(name = "account", key = "#order.customer()")
  public String keyedByRecord(Order order) {
    return Locks.current().lockId();
  }

  @DistributedLock(name = "account", key = "#accountId")
  public String keyedOrNull(String accountId) {
    return Locks.current().lockId();
  }

  @DistributedLock(name = "jobs.reentrant")
  public long[] reentrant() {
    long outer = Locks.current().fencingToken();
    long inner = sameLockAgain();
    return new long[] {outer, inner};
  }

  @DistributedLock(name = "jobs.reentrant")
  long sameLockAgain() {
    return Locks.current().fencingToken();
  }

  /** Calls itself with a smaller depth: each depth is a different lock. */
  @DistributedLock(name = "tree", key = "#depth")
  public List<String> descend(int depth) {
    List<String> lockIds = new ArrayList<>();
    lockIds.add(Locks.current().lockId());
    if (depth > 0) {
      lockIds.addAll(descend(depth - 1));
    }
    return lockIds;
  }

  @NightlyJob
  public Lease nightly() {
    return Locks.current();
  }

  @WeeklyJob
  public Lease weekly() {
    return Locks.current();
  }

  @DistributedLock(name = "jobs.busy", onBusy = OnBusy.SKIP)
  public Optional<String> skipping() {
    runs.incrementAndGet();
    return Optional.of("ran");
  }

  @DistributedLock(name = "jobs.busy", onBusy = OnBusy.SKIP)
  public void skippingVoid() {
    runs.incrementAndGet();
  }

  @DistributedLock(name = "jobs.busy", onBusy = OnBusy.FAIL)
  public String failing() {
    runs.incrementAndGet();
    return "ran";
  }

  @DistributedLock(name = "jobs.busy", waitTimeout = "300ms")
  public String waitingBriefly() {
    runs.incrementAndGet();
    return "ran";
  }

  @DistributedLock(name = "jobs.busy", waitTimeout = "30s")
  public long waiting() {
    runs.incrementAndGet();
    return Locks.current().fencingToken();
  }

  @DistributedLock(name = "jobs.async")
  public CompletableFuture<String> async(CompletableFuture<String> result) {
    return result;
  }

  @DistributedLock(name = "jobs.throws")
  public void throwing() throws java.io.IOException {
    throw new java.io.IOException("from the method");
  }

  /** An argument whose component is the key. */
  record Order(String customer) {}
}
