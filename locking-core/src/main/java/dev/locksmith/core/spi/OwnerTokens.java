package dev.locksmith.core.spi;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Owner tokens and owner descriptions. */
public final class OwnerTokens {
  private static final String PROCESS_PREFIX = randomHex(12);
  private static final byte[] PREFIX_BYTES = PROCESS_PREFIX.getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);
  private static final AtomicLong SEQUENCE = new AtomicLong();
  private static final String HOST = hostName();
  private static final String HOST_AND_PID = HOST + "/" + ProcessHandle.current().pid() + "/";
  // Descriptions by thread name: a pool's threads keep their names, so most calls find theirs.
  private static final int MAX_DESCRIBED_THREADS = 1024;
  private static final ConcurrentHashMap<String, String> DESCRIBED = new ConcurrentHashMap<>();

  private OwnerTokens() {}

  /**
   * A new owner token: 96 random bits chosen once per process, then a sequence number. Unique
   * across processes and acquisitions, cheap to make; it is not ordered across hosts, so it cannot
   * fence.
   *
   * @return a new owner token: 96 random bits chosen once per process, then a sequence number
   */
  public static String newToken() {
    long sequence = SEQUENCE.incrementAndGet();
    // The hex digits written straight after the prefix: one array, no intermediate string.
    int digits = Math.max(1, (Long.SIZE - Long.numberOfLeadingZeros(sequence) + 3) / 4);
    byte[] token = Arrays.copyOf(PREFIX_BYTES, PREFIX_BYTES.length + digits);
    for (int i = token.length - 1; i >= PREFIX_BYTES.length; i--, sequence >>>= 4) {
      token[i] = HEX_DIGITS[(int) (sequence & 0xF)];
    }
    return new String(token, StandardCharsets.ISO_8859_1);
  }

  private static String randomHex(int bytes) {
    byte[] random = new byte[bytes];
    new SecureRandom().nextBytes(random);
    return HexFormat.of().formatHex(random) + "-";
  }

  /**
   * Describes the calling thread as {@code host/pid/thread}.
   *
   * @return {@code host/pid/thread}
   */
  public static String describeCaller() {
    String thread = Thread.currentThread().getName();
    String described = DESCRIBED.get(thread);
    if (described == null) {
      described = HOST_AND_PID + thread;
      if (DESCRIBED.size() < MAX_DESCRIBED_THREADS) {
        DESCRIBED.putIfAbsent(thread, described);
      }
    }
    return described;
  }

  /**
   * This host's name, as far as it can be found without a network round trip.
   *
   * @return this host's name, as far as it can be found without a network round trip
   */
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
