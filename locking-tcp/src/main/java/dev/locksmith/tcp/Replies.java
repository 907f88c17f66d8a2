package dev.locksmith.tcp;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waiting for the server's replies and reading them: the {@code request-timeout} bound, and the
 * errors for no reply, a refusal and a malformed field, each naming the server and the request.
 */
final class Replies {
  private final TcpProviderSettings settings;

  Replies(TcpProviderSettings settings) {
    this.settings = settings;
  }

  /** The reply to {@code p} within {@code nanos}; a failed request throws its failure. */
  static Reply await(ClientConnection.Pending p, long nanos)
      throws InterruptedException, TimeoutException {
    try {
      return p.reply().get(nanos, TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof LockProviderException lpe) {
        throw lpe;
      }
      throw new LockProviderException("request failed: " + e.getCause(), e.getCause());
    }
  }

  /**
   * The reply to {@code p} within {@code request-timeout}, waiting through interrupts (the
   * interrupt is kept for the caller).
   *
   * @param what the request, for the error when no reply comes
   */
  Reply awaitUninterruptibly(ClientConnection.Pending p, String what) {
    boolean interrupted = false;
    long deadline = System.nanoTime() + settings.requestTimeout().toNanos();
    try {
      while (true) {
        try {
          return await(p, deadline - System.nanoTime());
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (TimeoutException e) {
          throw noReply(what, e);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A STATUS reply as the lock's status. */
  LockStatus status(String lockId, Reply reply) {
    switch (reply.kind()) {
      case "FREE" -> {
        return new LockStatus(lockId, null, (int) parseLong(reply, reply.fields(1), 0));
      }
      case "HELD" -> {
        List<String> f = reply.fields(4);
        long fencing = parseLong(reply, f, 0);
        long left = parseLong(reply, f, 1);
        int waiters = (int) parseLong(reply, f, 2);
        String owner = f.size() > 3 ? f.get(3) : "-";
        return new LockStatus(
            lockId, new LockStatus.Holder(owner, fencing, Duration.ofMillis(left)), waiters);
      }
      default -> throw refused("STATUS '" + lockId + "'", reply);
    }
  }

  /**
   * The grants of an {@code OK <n> <token> <fencing> ... <ttl>} reply to an ACQUIRE-ALL of {@code
   * requests}, in request order, each with the conservative local deadline: the request's send time
   * plus its ttl; empty for {@code BUSY <lock>}.
   *
   * @param what the request, for errors
   */
  Optional<List<LeaseGrant>> grants(
      List<LockRequest> requests, Reply reply, long sentNanos, String what) {
    if (reply.is("BUSY")) {
      return Optional.empty();
    }
    if (!reply.is("OK")) {
      throw refused(what, reply);
    }
    int n = requests.size();
    List<String> f = reply.fields(2 * n + 2);
    if (f.size() != 2 * n + 2 || parseLong(reply, f, 0) != n) {
      throw new LockProviderException(
          settings + " sent a malformed reply to " + what + ": '" + reply.line() + "'");
    }
    List<LeaseGrant> grants = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      LockRequest request = requests.get(i);
      grants.add(
          new LeaseGrant(
              request.lockId(),
              request.ownerToken(),
              parseLong(reply, f, 2 + 2 * i),
              request.ttl(),
              sentNanos + request.ttl().toNanos()));
    }
    return Optional.of(List.copyOf(grants));
  }

  /** Whether the server did not know the request's command (an older version). */
  static boolean unknownCommand(Reply reply) {
    return reply.is("ERR") && reply.rest().startsWith("UNKNOWN_COMMAND");
  }

  LockProviderException noReply(String what, Exception cause) {
    return new LockProviderException(
        settings.server()
            + " did not answer "
            + what
            + " within "
            + ConnectFailures.requestTimeout(settings),
        cause);
  }

  LockProviderException refused(String what, Reply reply) {
    return new LockProviderException(
        settings + " refused " + what + ": '" + reply.kind() + " " + reply.rest() + "'");
  }

  /** Field {@code index} of {@code fields} as a number, or an error naming the reply. */
  long parseLong(Reply reply, List<String> fields, int index) {
    try {
      return Long.parseLong(fields.get(index));
    } catch (RuntimeException e) {
      throw new LockProviderException(
          settings + " sent a malformed reply: '" + reply.line() + "' (field " + (index + 1) + ")",
          e);
    }
  }
}
