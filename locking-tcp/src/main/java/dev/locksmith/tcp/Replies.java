package dev.locksmith.tcp;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Waiting for the server's replies and reading them: the {@code request-timeout} bound, and the
 * errors for no reply, a refusal and a malformed field, each naming the server and the request.
 */
final class Replies {
  /** The holder a restarted server reports while it waits out the leases of its run before. */
  static final String RESTART_WAIT_OWNER =
      "the lock server's restart wait (leases of its run before)";

  private final TcpProviderSettings settings;

  Replies(TcpProviderSettings settings) {
    this.settings = settings;
  }

  /** The reply to {@code p} within {@code nanos}; a failed request throws its failure. */
  static Reply await(PendingRequests.Pending p, long nanos)
      throws InterruptedException, TimeoutException {
    try {
      return p.reply().get(nanos, TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw failure(Objects.requireNonNullElse(e.getCause(), e));
    }
  }

  /**
   * What a failed request throws: its failure when that is a {@link LockProviderException} (such as
   * {@link ConnectionLostException}), else a {@link LockProviderException} with it as the cause.
   */
  static LockProviderException failure(Throwable cause) {
    if (cause instanceof LockProviderException lpe) {
      return lpe;
    }
    return new LockProviderException("request failed: " + cause, cause);
  }

  /**
   * The reply to {@code p} within {@code request-timeout}, waiting through interrupts (the
   * interrupt is kept for the caller).
   *
   * @param what the request, for the error when no reply comes
   */
  Reply awaitUninterruptibly(PendingRequests.Pending p, String what) {
    return awaitUninterruptibly(p, what, () -> {});
  }

  /**
   * The reply to {@code p} within {@code request-timeout}, waiting through interrupts (the
   * interrupt is kept for the caller); runs {@code onTimeout} before it throws for a reply that did
   * not come.
   *
   * @param what the request, for the error when no reply comes
   */
  Reply awaitUninterruptibly(PendingRequests.Pending p, String what, Runnable onTimeout) {
    boolean interrupted = false;
    long deadline = System.nanoTime() + settings.requestTimeout().toNanos();
    try {
      while (true) {
        try {
          return await(p, deadline - System.nanoTime());
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (TimeoutException e) {
          onTimeout.run();
          throw noReply(what, e);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * The replies to {@code sent}, in order, all within {@code request-timeout} of the first send,
   * waiting through interrupts (the interrupt is kept for the caller); null for a request whose
   * connection dropped before its reply.
   *
   * @param what the requests, for the error when a reply does not come
   * @throws LockProviderException when a reply did not come in time, or a request failed otherwise
   */
  List<@Nullable Reply> awaitAll(List<PendingRequests.Pending> sent, String what) {
    List<@Nullable Reply> got = new ArrayList<>(sent.size());
    if (sent.isEmpty()) {
      return got;
    }
    long deadline = sent.get(0).sentNanos() + settings.requestTimeout().toNanos();
    boolean interrupted = false;
    try {
      for (PendingRequests.Pending p : sent) {
        while (true) {
          try {
            got.add(await(p, deadline - System.nanoTime()));
            break;
          } catch (ConnectionLostException e) {
            got.add(null);
            break;
          } catch (InterruptedException e) {
            interrupted = true;
          } catch (TimeoutException e) {
            throw noReply(what, e);
          }
        }
      }
      return got;
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
        if (fencing == 0 && owner.equals("-")) {
          // No lease of this run: the server waits out the leases of the run before its restart.
          owner = RESTART_WAIT_OWNER;
        }
        return new LockStatus(
            lockId, new LockStatus.Holder(owner, fencing, Duration.ofMillis(left)), waiters);
      }
      default -> throw refused("STATUS " + LockIdText.quoted(lockId), reply);
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
      grants.add(request.granted(parseLong(reply, f, 2 + 2 * i), sentNanos));
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

  /**
   * What a request the server refused throws. A limit reached by this request ({@code ERR LIMIT},
   * {@code ERR LINE_TOO_LONG}) or an argument the server does not take ({@code ERR BAD_ARGUMENT})
   * refuses it alone: the server answered, so it is a {@link LockException} or an {@link
   * IllegalArgumentException}, which the engine does not count as an outage. {@code ERR AUTH}, a
   * server that wants a secret this client did not send, is a URL to fix: a {@link
   * LockConfigurationException}, as a rejected secret is. Any other refusal is a {@link
   * LockProviderException}.
   */
  RuntimeException refused(String what, Reply reply) {
    // A request naming a very long lock id is named by its start.
    String request =
        what.length() <= 200 ? what : what.substring(0, 200) + "... (" + what.length() + " chars)";
    String message =
        settings + " refused " + request + ": '" + reply.kind() + " " + reply.rest() + "'";
    if (reply.is("ERR")
        && (reply.rest().startsWith("LIMIT ") || reply.rest().startsWith("LINE_TOO_LONG "))) {
      return new LockException(message);
    }
    if (reply.is("ERR") && reply.rest().startsWith("AUTH ")) {
      return new LockConfigurationException(
          message + "; the server needs a secret: add secret-file=PATH to the URL");
    }
    if (reply.is("ERR") && reply.rest().startsWith("BAD_ARGUMENT ")) {
      return new IllegalArgumentException(message);
    }
    return new LockProviderException(message);
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
