package dev.locksmith.tcp.server;

import java.util.List;
import org.jspecify.annotations.Nullable;

/** One parsed request line. Every request carries the client's id, echoed in its reply. */
sealed interface Request {

  /** The client's id for this request. */
  String id();

  /** {@code <id> AUTH <secret>}. */
  record Auth(String id, String secret) implements Request {}

  /** {@code <id> PING}. */
  record Ping(String id) implements Request {}

  /** {@code <id> QUIT}. */
  record Quit(String id) implements Request {}

  /**
   * {@code <id> ACQUIRE <lock> <ttl-ms> <wait-ms> <owner-token|-> [owner description]}.
   *
   * @param ownerToken the client's token, or {@code null} when the server is to make one
   */
  record Acquire(
      String id,
      String lockId,
      long ttlMillis,
      long waitMillis,
      @Nullable String ownerToken,
      String owner)
      implements Request {}

  /**
   * {@code <id> ACQUIRE-ALL <ttl-ms> <n> <lock> <owner-token|-> ... [owner description]}: takes
   * every lock, or none when one is busy, without waiting.
   *
   * @param locks one to {@link dev.locksmith.tcp.internal.Protocol#MAX_LOCKS_PER_REQUEST} locks,
   *     distinct, in the order the client gave them
   */
  record AcquireAll(String id, long ttlMillis, List<Part> locks, String owner) implements Request {

    /** Copies the locks. */
    public AcquireAll {
      locks = List.copyOf(locks);
    }

    /**
     * One lock of the request.
     *
     * @param wireId the lock id as the client sent it, for the BUSY reply
     * @param ownerToken the client's token, or {@code null} when the server is to make one
     */
    record Part(String lockId, String wireId, @Nullable String ownerToken) {}
  }

  /** {@code <id> RENEW <lock> <owner-token> <ttl-ms>}. */
  record Renew(String id, String lockId, String ownerToken, long ttlMillis) implements Request {}

  /**
   * {@code <id> HOLD <lock> <owner-token> <ttl-ms>}: the work is done, keep the lock for ttl-ms
   * more, detached from the connection (a minimum hold).
   */
  record Hold(String id, String lockId, String ownerToken, long ttlMillis) implements Request {}

  /** {@code <id> STATS}: the server's counters on one line. */
  record Stats(String id) implements Request {}

  /** {@code <id> RELEASE <lock> <owner-token>}. */
  record Release(String id, String lockId, String ownerToken) implements Request {}

  /** {@code <id> STATUS <lock>}. */
  record Status(String id, String lockId) implements Request {}

  /** {@code <id> CANCEL <acquire-id>}: withdraws a waiting ACQUIRE of this connection. */
  record Cancel(String id, String acquireId) implements Request {}
}
