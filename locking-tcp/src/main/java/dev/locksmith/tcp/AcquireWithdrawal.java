package dev.locksmith.tcp;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LockRequest;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Withdraws an ACQUIRE its caller gave up on (interrupted, or no reply in time) so that no lease is
 * left behind on the server: CANCEL it, RELEASE it should the grant have come first, and drop the
 * connection, which releases everything it held on the server, when the server does not answer.
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
   * Withdraws an ACQUIRE the caller gave up on: CANCEL it, wait for its final reply, and release
   * the lease if it was granted first. When the server does not answer, drops the connection, which
   * releases everything it held on the server.
   */
  void now(ClientConnection c, ClientConnection.Pending p, LockRequest request) {
    boolean interrupted = false;
    try {
      c.send(RequestLines.cancel(p.id())).reply().exceptionally(e -> null);
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
        ClientConnection.Pending release =
            c.send(RequestLines.release(request.lockId(), request.ownerToken()));
        while (true) {
          try {
            Replies.await(release, limit);
            break;
          } catch (InterruptedException e) {
            interrupted = true;
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
   * Withdraws an ACQUIRE that got no reply in time without making the caller wait any longer:
   * CANCEL it, release the lease if its reply turns out to be a grant, and drop the connection
   * (which releases everything it held on the server) if no reply comes within another {@code
   * request-timeout}.
   */
  void later(ClientConnection c, ClientConnection.Pending p, LockRequest request) {
    c.send(RequestLines.cancel(p.id())).reply().exceptionally(e -> null);
    p.reply()
        .thenAccept(
            reply -> {
              if (reply.is("OK")) {
                c.send(RequestLines.release(request.lockId(), request.ownerToken()))
                    .reply()
                    .exceptionally(e -> null);
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
