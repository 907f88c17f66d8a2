package dev.locksmith.testkit.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** What the topology starters share: polling a condition with a bound, and reading INFO. */
final class Probe {
  private static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  /** A condition that may fail to be looked at (a server not answering yet): then it is false. */
  @FunctionalInterface
  interface Condition {
    boolean holds() throws IOException;
  }

  private Probe() {}

  /**
   * Looks at {@code condition} every 20 ms until it holds.
   *
   * @throws IllegalStateException naming {@code what} when it does not hold within {@code timeout}
   */
  static void await(String what, Duration timeout, Condition condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    IOException last = null;
    while (true) {
      try {
        if (condition.holds()) {
          return;
        }
      } catch (IOException e) {
        last = e;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            what + " did not happen within " + timeout + (last == null ? "" : ": " + last), last);
      }
      LockSupport.parkNanos(INTERVAL_NANOS); // the interval between two looks, not a hand-off
      if (Thread.interrupted()) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting until " + what);
      }
    }
  }

  /** The {@code INFO section} of a server as name/value pairs. */
  static Map<String, String> info(RedisServerProcess server, String section) throws IOException {
    Object reply = server.call("INFO", section);
    Map<String, String> values = new HashMap<>();
    for (String line : String.valueOf(reply).split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        values.put(line.substring(0, colon), line.substring(colon + 1).strip());
      }
    }
    return values;
  }

  /**
   * Whether every replica the master lists is online and has acknowledged the master's replication
   * offset as it was at {@code offset} or later, what {@code WAIT} waits for.
   *
   * @param replicas how many replicas must be listed
   */
  static boolean acknowledged(RedisServerProcess master, long offset, int replicas)
      throws IOException {
    Map<String, String> info = info(master, "replication");
    int online = 0;
    for (int i = 0; i < replicas; i++) {
      String slave = info.get("slave" + i);
      if (slave == null) {
        return false;
      }
      Map<String, String> fields = new HashMap<>();
      for (String pair : slave.split(",")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          fields.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
      }
      if ("online".equals(fields.get("state"))
          && Long.parseLong(fields.getOrDefault("offset", "-1")) >= offset) {
        online++;
      }
    }
    return online == replicas;
  }

  /** The master's replication offset now. */
  static long offset(RedisServerProcess master) throws IOException {
    String value = info(master, "replication").get("master_repl_offset");
    if (value == null) {
      throw new IOException(master + " reports no master_repl_offset");
    }
    return Long.parseLong(value);
  }
}
