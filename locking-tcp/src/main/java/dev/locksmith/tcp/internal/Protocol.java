package dev.locksmith.tcp.internal;

import dev.locksmith.core.spi.LockProvider;

/** Constants of the Locksmith lock protocol; see {@code PROTOCOL.md}. */
public final class Protocol {

  /** The default TCP port of the lock server. */
  public static final int DEFAULT_PORT = 7420;

  /** The largest ttl or wait, in milliseconds, a request may carry (about 31 years). */
  public static final long MAX_MILLIS = 1_000_000_000_000L;

  /** The id the server puts on lines it sends unasked, such as {@code * BYE shutting-down}. */
  public static final String PUSH_ID = "*";

  /**
   * The most locks one {@code ACQUIRE-ALL} request may name: the SPI's {@link
   * LockProvider#MAX_KEYS_PER_CALL}, 64.
   */
  public static final int MAX_LOCKS_PER_REQUEST = LockProvider.MAX_KEYS_PER_CALL;

  private Protocol() {}
}
