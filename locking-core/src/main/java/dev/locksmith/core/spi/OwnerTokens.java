package dev.locksmith.core.spi;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.HexFormat;

/** Owner tokens and owner descriptions. */
public final class OwnerTokens {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String HOST = hostName();
  private static final long PID = ProcessHandle.current().pid();

  private OwnerTokens() {}

  /** A new random 128-bit owner token in hex: unique, but not ordered (it cannot fence). */
  public static String newToken() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /** Describes the calling thread as {@code host/pid/thread}. */
  public static String describeCaller() {
    return HOST + "/" + PID + "/" + Thread.currentThread().getName();
  }

  /** This host's name, as far as it can be found without a network round trip. */
  public static String host() {
    return HOST;
  }

  private static String hostName() {
    String env = System.getenv("HOSTNAME");
    if (env != null && !env.isBlank()) {
      return env;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown-host";
    }
  }
}
