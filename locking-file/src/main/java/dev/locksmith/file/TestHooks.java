package dev.locksmith.file;

/**
 * Points inside the protocol where a test can stop a thread (with a latch) to reproduce a process
 * that pauses at the worst moment: a GC pause, {@code SIGSTOP}, a slow mount. Every method does
 * nothing by default; production code never installs hooks.
 */
interface TestHooks {
  /** The hooks of every provider that has not been given others: none. */
  TestHooks NONE = new TestHooks() {};

  /**
   * What an acquisition read through the fencing counter it opened before creating its lock file; a
   * test may give an earlier value back, as an NFS client does that answers the read from pages it
   * cached before another host's last write (close-to-open revalidates only at open).
   */
  default long readThroughEarlyOpen(String lockId, long value) {
    return value;
  }

  /** An acquisition has opened the fencing counter and has not yet created its lock file. */
  default void beforeLockCreate(String lockId) {}

  /** An acquisition has created its lock file and has not yet written its record in it. */
  default void beforeLockWrite(String lockId) {}

  /**
   * An acquisition has read the fencing counter and chosen its token (its record may already be in
   * the lock file), and has not yet stored the token in the counter.
   */
  default void beforeCounterStore(String lockId, long token) {}

  /**
   * An acquisition has its grant and has not yet closed its lock file and counter, where a network
   * mount may first report a failed write.
   */
  default void beforeAcquireClose(String lockId) {}

  /**
   * An acquisition in its slow path has taken the fencing counter away (renamed it to its own name)
   * and read it, and has not yet linked the new one in.
   */
  default void beforeSettlePublish(String lockId) {}

  /**
   * A take-over has created its claim (the call that creates it may stall in its last round trips,
   * after the file server set the claim's modification time), and has done nothing else yet.
   */
  default void afterClaimCreate(String lockId) {}

  /**
   * A take-over has taken the fencing counter away (renamed it to its claim's name) and read it
   * while the stale lock file is still in place, and has not yet linked the new one in.
   */
  default void beforeStealRaise(String lockId, long staleToken) {}

  /**
   * A renewal has checked that the lock file holds the caller's record, and has not yet written the
   * renewed one; a test may throw here what a write failing on the share would.
   */
  default void beforeRenewWrite(String lockId) throws java.io.IOException {}

  /**
   * A release (or a failed acquisition's clean-up) has renamed the lock file to its tomb and has
   * not yet read what moved; a test may throw here what a read failing on the share would.
   */
  default void afterTombMove(String lockId) throws java.io.IOException {}

  /**
   * A prune has renamed a counter file away and has not yet checked it again (the lock file, the
   * last token, the last change).
   */
  default void afterPruneTake(String lockId) {}
}
