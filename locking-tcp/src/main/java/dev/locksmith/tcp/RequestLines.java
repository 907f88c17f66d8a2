package dev.locksmith.tcp;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.internal.LockIds;
import dev.locksmith.tcp.internal.Protocol;
import java.time.Duration;
import java.util.List;

/**
 * The request lines the provider sends (without their id, which the connection adds), as
 * PROTOCOL.md specifies them: lock ids and owner tokens percent-encoded, TTLs and waits in whole
 * milliseconds rounded up, owners cut to printable text.
 */
final class RequestLines {
  private static final int MAX_OWNER = 200;

  private RequestLines() {}

  /** {@code ACQUIRE <lock> <ttl> <wait> <token> [owner]}. */
  static String acquire(LockRequest request, long waitMillis) {
    String owner = sanitize(request.owner());
    return "ACQUIRE "
        + LockIds.encode(request.lockId())
        + " "
        + ttlMillis(request.ttl())
        + " "
        + waitMillis
        + " "
        + wireToken(request.ownerToken())
        + (owner.isEmpty() ? "" : " " + owner);
  }

  /**
   * {@code ACQUIRE-ALL <ttl> <n> <lock> <token> ... [owner]}: every lock of {@code requests}, in
   * their order, with the first request's ttl and owner (see {@link #oneRequest}).
   */
  static String acquireAll(List<LockRequest> requests) {
    LockRequest first = requests.get(0);
    String owner = sanitize(first.owner());
    StringBuilder line = new StringBuilder(32 + 64 * requests.size() + owner.length());
    line.append("ACQUIRE-ALL ").append(ttlMillis(first.ttl())).append(' ').append(requests.size());
    for (LockRequest request : requests) {
      line.append(' ')
          .append(LockIds.encode(request.lockId()))
          .append(' ')
          .append(wireToken(request.ownerToken()));
    }
    if (!owner.isEmpty()) {
      line.append(' ').append(owner);
    }
    return line.toString();
  }

  /**
   * Whether one ACQUIRE-ALL can carry {@code requests}: they share their ttl (on the wire) and
   * owner, as the engine's requests of one call do.
   */
  static boolean oneRequest(List<LockRequest> requests) {
    LockRequest first = requests.get(0);
    long ttl = ttlMillis(first.ttl());
    for (LockRequest request : requests) {
      if (ttlMillis(request.ttl()) != ttl || !request.owner().equals(first.owner())) {
        return false;
      }
    }
    return true;
  }

  /** The lock ids of {@code requests} for messages: {@code 'a', 'b'}. */
  static String names(List<LockRequest> requests) {
    StringBuilder out = new StringBuilder();
    for (LockRequest request : requests) {
      out.append(out.length() == 0 ? "'" : ", '").append(request.lockId()).append('\'');
    }
    return out.toString();
  }

  /** {@code RELEASE <lock> <token>}. */
  static String release(String lockId, String ownerToken) {
    return "RELEASE " + LockIds.encode(lockId) + " " + wireToken(ownerToken);
  }

  /** {@code RENEW} (still tied to the connection) or {@code HOLD} (detached) to a new ttl. */
  static String renew(LeaseGrant lease, Duration ttl, boolean hold) {
    return (hold ? "HOLD " : "RENEW ")
        + LockIds.encode(lease.lockId())
        + " "
        + wireToken(lease.ownerToken())
        + " "
        + ttlMillis(ttl);
  }

  /** {@code CANCEL <id>} of an ACQUIRE still waiting. */
  static String cancel(String requestId) {
    return "CANCEL " + requestId;
  }

  /** {@code STATUS <lock>}. */
  static String status(String lockId) {
    return "STATUS " + LockIds.encode(lockId);
  }

  /** {@code AUTH <secret>}. */
  static String auth(String secret) {
    return "AUTH " + secret;
  }

  /**
   * The owner token as sent: percent-encoded like a lock id, so any token the SPI allows fits the
   * protocol's "printable ASCII without spaces"; a lone "-" (which asks the server for a token) is
   * escaped.
   */
  static String wireToken(String ownerToken) {
    return ownerToken.equals("-") ? "%2D" : LockIds.encode(ownerToken);
  }

  /** The TTL on the wire: whole milliseconds rounded up, so the server never ends it earlier. */
  static long ttlMillis(Duration ttl) {
    return Math.max(1, ceilMillis(ttl));
  }

  /** A wait on the wire: whole milliseconds rounded up, 0 for none, at most the protocol's max. */
  static long ceilMillis(Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      return 0;
    }
    if (timeout.compareTo(Duration.ofMillis(Protocol.MAX_MILLIS)) >= 0) {
      return Protocol.MAX_MILLIS;
    }
    long millis = timeout.toMillis();
    return timeout.equals(Duration.ofMillis(millis)) ? millis : millis + 1;
  }

  private static String sanitize(String owner) {
    StringBuilder out = new StringBuilder(Math.min(owner.length(), MAX_OWNER));
    for (int i = 0; i < owner.length() && out.length() < MAX_OWNER; i++) {
      char c = owner.charAt(i);
      out.append(c < 0x20 || c == 0x7F ? '?' : c);
    }
    return out.toString().strip();
  }
}
