package dev.locksmith.testkit;

import dev.locksmith.core.spi.LockProvider;

/**
 * A client of the provider under test whose path to the lock store a test can make misbehave, for
 * the conformance suite's fault cases. Network providers put a {@link FaultProxy} between the
 * client and a real server ({@link #through}); providers with no network (a directory, memory)
 * stall the store's answers instead ({@link #stalling}).
 */
public interface FaultyPath extends AutoCloseable {

  /**
   * The client whose path misbehaves.
   *
   * @return the client whose path misbehaves
   */
  LockProvider provider();

  /**
   * From now on replies stop reaching the client, while its requests still reach the store and take
   * effect; held replies arrive after {@link #thaw()}. A client waiting for one hangs, as it would
   * behind a frozen network path.
   */
  void freezeReplies();

  /** Delivers what was held and lets replies through again. */
  void thaw();

  /**
   * The next reply is lost after the store acted on its request, as when a connection drops just
   * then; the client sees the failure its transport gives it (and may resend).
   */
  void loseNextReply();

  /** Thaws the path and closes the client and whatever carries the faults. */
  @Override
  void close();

  /**
   * A network client behind a proxy; closing closes both.
   *
   * @param proxy the proxy between the client and the server
   * @param client a client connected through the proxy
   * @return a network client behind a proxy; closing closes both
   */
  static FaultyPath through(FaultProxy proxy, LockProvider client) {
    return new ProxiedPath(proxy, client);
  }

  /**
   * A store-only client whose answers are held back or lost by a wrapper around it.
   *
   * @param client a client of a store without network
   * @return a store-only client whose answers are held back or lost by a wrapper around it
   */
  static FaultyPath stalling(LockProvider client) {
    return new StallingProvider(client);
  }
}
