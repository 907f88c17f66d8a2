package dev.locksmith.testkit;

/**
 * What the conformance suite may do to the provider's lock store between grants, to check that
 * fencing tokens never go back: restart it, restart it with its persisted state lost, restart it
 * with persistence added. Clients created before a restart may fail until they reconnect; the suite
 * uses clients created after it. Where a store cannot do one of these literally, the method does
 * the nearest thing a user could (for example a file store "loses its state" when its counter files
 * are deleted) and its Javadoc says so.
 */
public interface StoreLifecycle {

  /**
   * Stops the store and starts it again with the same data.
   *
   * @throws Exception when the store cannot be restarted
   */
  void restart() throws Exception;

  /**
   * Stops the store and starts it again with its persisted fencing state gone: a server restarted
   * without its data directory, a Redis without persistence, counter files deleted by an operator.
   *
   * @throws Exception when the store cannot be restarted
   */
  void restartLosingState() throws Exception;

  /**
   * Stops the store and starts it again with persistence added where it ran without (a lock server
   * given a data directory for the first time); the same as {@link #restart()} where persistence
   * cannot be switched.
   *
   * @throws Exception when the store cannot be restarted
   */
  void restartWithPersistenceAdded() throws Exception;
}
