package dev.locksmith.spring;

/** How {@code @DistributedLock} methods are intercepted in a Spring application. */
public enum LockingMode {
  /** A Spring AOP advisor on proxies of the annotated beans (the default). */
  PROXY,
  /**
   * The AspectJ aspect of {@code locking-aspectj}, woven at compile or load time. No proxy or
   * advisor is added, so that no call is locked twice; the aspect uses the Spring-built engine.
   */
  ASPECTJ
}
