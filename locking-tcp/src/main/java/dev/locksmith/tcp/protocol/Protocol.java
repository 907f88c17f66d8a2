package dev.locksmith.tcp.protocol;

/** Constants of the Locksmith lock protocol; see {@code PROTOCOL.md}. */
public final class Protocol {

  /** The default TCP port of the lock server. */
  public static final int DEFAULT_PORT = 7420;

  /** The largest ttl or wait, in milliseconds, a request may carry (about 31 years). */
  public static final long MAX_MILLIS = 1_000_000_000_000L;

  /** The id the server puts on lines it sends unasked, such as {@code * BYE shutting-down}. */
  public static final String PUSH_ID = "*";

  private Protocol() {}
}
