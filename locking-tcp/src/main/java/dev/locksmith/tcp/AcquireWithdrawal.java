package dev.locksmith.tcp;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LockRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Withdraws an ACQUIRE or ACQUIRE-ALL its caller gave up on (interrupted, or no reply in time) so
 * that no lease is left behind on the server: CANCEL it (an ACQUIRE, which may wait), RELEASE it
 * should the grant have come first, and drop the connection, which releases everything it held on
 * the server, when the server does not answer.
 */
final class AcquireWithdrawal {
  private static final Logger LOG = LoggerFactory.getLogger(AcquireWithdrawal.class);

  private final TcpProviderSettings settings;
  private final Connector connector;

  AcquireWithdrawal(TcpProviderSettings settings, Connector connector) {
    this.settings = settings;
    this.connector = connector;
  }

  /**
   * Withdraws an ACQUIRE or ACQUIRE-ALL the caller gave up on: CANCEL it (an ACQUIRE), wait for its
   * final reply, and release every lock if they were granted first. When the server does not
   * answer, drops the connection, which releases everything it held on the server.
   *
   * @param waits whether the request may wait on the server (an ACQUIRE), so it is to be cancelled
   */
  void now(
      ClientConnection c, PendingRequests.Pending p, List<LockRequest> requests, boolean waits) {
    boolean interrupted = false;
    try {
      if (waits) {
        c.send(RequestLines.cancel(p.id())).reply().exceptionally(e -> null);
      }
      long limit = settings.requestTimeout().toNanos();
      Reply reply;
      while (true) {
        try {
          reply = Replies.await(p, limit);
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (reply.is("OK")) {
        List<PendingRequests.Pending> releases = new ArrayList<>(requests.size());
        for (LockRequest request : requests) {
          releases.add(c.send(RequestLines.release(request.lockId(), request.ownerToken())));
        }
        for (PendingRequests.Pending release : releases) {
          while (true) {
            try {
              Replies.await(release, limit);
              break;
            } catch (InterruptedException e) {
              interrupted = true;
            }
          }
        }
      }
    } catch (TimeoutException e) {
      LOG.warn("No reply from {} while cancelling an ACQUIRE; dropping the connection", settings);
      c.close("no reply while cancelling");
    } catch (LockProviderException e) {
      LOG.debug("Connection lost while cancelling an ACQUIRE: {}", e.getMessage());
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Withdraws an ACQUIRE or ACQUIRE-ALL that got no reply in time without making the caller wait
   * any longer: CANCEL it (an ACQUIRE), release every lock if its reply turns out to be a grant,
   * and drop the connection (which releases everything it held on the server) if no reply comes
   * within another {@code request-timeout}.
   *
   * @param waits whether the request may wait on the server (an ACQUIRE), so it is to be cancelled
   */
  void later(
      ClientConnection c, PendingRequests.Pending p, List<LockRequest> requests, boolean waits) {
    if (waits) {
      c.send(RequestLines.cancel(p.id())).reply().exceptionally(e -> null);
    }
    p.reply()
        .thenAccept(
            reply -> {
              if (reply.is("OK")) {
                for (LockRequest request : requests) {
                  c.send(RequestLines.release(request.lockId(), request.ownerToken()))
                      .reply()
                      .exceptionally(e -> null);
                }
              }
            });
    try {
      connector.schedule(
          () -> {
            if (!p.reply().isDone()) {
              LOG.warn(
                  "No reply from {} to an ACQUIRE or its CANCEL; dropping the connection",
                  settings);
              c.close(
                  "no reply to an ACQUIRE or its CANCEL within "
                      + ConnectFailures.requestTimeout(settings));
            }
          },
          settings.requestTimeout().toNanos());
    } catch (RejectedExecutionException e) {
      c.close("provider closed", true);
    }
  }
}
