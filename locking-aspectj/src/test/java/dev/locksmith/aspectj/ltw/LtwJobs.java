package dev.locksmith.aspectj.ltw;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Locks;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** Locked methods of every shape, woven only when the class is loaded. */
public class LtwJobs {
  final AtomicInteger runs = new AtomicInteger();

  /** Locked; returns its lock id. */
  @DistributedLock(name = "ltw.plain")
  public String plain() {
    runs.incrementAndGet();
    return Locks.current().lockId();
  }

  String callsOwnPublic() {
    return plain();
  }

  String callsPrivate() {
    return privateLocked();
  }

  @DistributedLock(name = "ltw.private")
  private String privateLocked() {
    return Locks.current().lockId();
  }

  @DistributedLock(name = "ltw.static")
  static String staticLocked() {
    return Locks.current().lockId();
  }

  @DistributedLock(name = "account", key = "#accountId + '/' + #p1")
  String keyed(String accountId, int slot) {
    return Locks.current().lockId();
  }

  @DistributedLock(name = "ltw.reentrant")
  long[] reentrant() {
    return new long[] {Locks.current().fencingToken(), sameLockAgain()};
  }

  @DistributedLock(name = "ltw.reentrant")
  long sameLockAgain() {
    return Locks.current().fencingToken();
  }

  @DistributedLock(name = "ltw.busy", onBusy = OnBusy.SKIP)
  Optional<String> skipping() {
    runs.incrementAndGet();
    return Optional.of("ran");
  }

  @DistributedLock(name = "ltw.busy", onBusy = OnBusy.FAIL)
  String failing() {
    runs.incrementAndGet();
    return "ran";
  }

  @DistributedLock(name = "ltw.busy", waitTimeout = "300ms")
  String waitingBriefly() {
    runs.incrementAndGet();
    return "ran";
  }

  @DistributedLock(name = "ltw.busy", waitTimeout = "30s")
  long waiting() {
    runs.incrementAndGet();
    return Locks.current().fencingToken();
  }
}
