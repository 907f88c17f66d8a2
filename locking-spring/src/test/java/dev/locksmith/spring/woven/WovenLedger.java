package dev.locksmith.spring.woven;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Locks;

/** A plain class whose method is woven by the aspect; Spring adds no proxy in aspectj mode. */
public class WovenLedger {

  /** Returns the lock id it runs under, resolved with a placeholder and a bean reference. */
  @DistributedLock(
      name = "${ledger.lock-name}",
      key = "@tenant.id() + ':' + #account",
      onBusy = OnBusy.FAIL)
  public String post(String account) {
    return Locks.current().lockId();
  }
}
