package dev.locksmith.spring.woven;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Locks;
import org.springframework.beans.factory.InitializingBean;

/** A woven bean that calls its own locked method while it starts, before the engine bean exists. */
public class WovenStartup implements InitializingBean {
  private String warmedUpUnder = "not yet";

  @Override
  public void afterPropertiesSet() {
    warmedUpUnder = warmUp();
  }

  /**
   * Returns the lock id it runs under, resolved with a placeholder that only the Spring-built
   * engine knows.
   *
   * @return the lock id
   */
  @DistributedLock(name = "${ledger.lock-name}-warm-up")
  public String warmUp() {
    return Locks.current().lockId();
  }

  /** The lock id the start-up call ran under. */
  String warmedUpUnder() {
    return warmedUpUnder;
  }
}
