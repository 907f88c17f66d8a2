package dev.locksmith.tcp;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases leases over the provider's connection, waiting for the reply or not, and keeps the
 * releases sent without waiting until their replies come or the provider closes.
 */
final class Releases {
  private static final Logger LOG = LoggerFactory.getLogger(TcpLockProvider.class);

  private final TcpProviderSettings settings;
  private final Connector connector;
  private final Replies replies;
  private final PendingReleases pendingReleases = new PendingReleases();

  Releases(TcpProviderSettings settings, Connector connector, Replies replies) {
    this.settings = settings;
    this.connector = connector;
    this.replies = replies;
  }

  /** As {@link TcpLockProvider#release} says. */
  boolean release(LeaseGrant lease) {
    ClientConnection c = connector.current();
    if (c == null || !c.leases().startRelease(lease.ownerToken(), lease.lockId())) {
      return false;
    }
    String what = "RELEASE '" + lease.lockId() + "'";
    PendingRequests.Pending p = c.send(RequestLines.release(lease.lockId(), lease.ownerToken()));
    Reply reply;
    try {
      reply = replies.awaitUninterruptibly(p, what);
    } catch (ConnectionLostException e) {
      return released(c, lease, null, e, what);
    } catch (RuntimeException e) {
      c.leases().releaseUnknown(lease.ownerToken());
      throw e;
    }
    return released(c, lease, reply, null, what);
  }

  /** As {@link TcpLockProvider#releaseAsync} says. */
  CompletionStage<Boolean> releaseAsync(LeaseGrant lease) {
    ClientConnection c = connector.current();
    if (c == null || !c.leases().startRelease(lease.ownerToken(), lease.lockId())) {
      return CompletableFuture.completedFuture(false);
    }
    String what = "RELEASE '" + lease.lockId() + "'";
    PendingRequests.Pending p = c.send(RequestLines.release(lease.lockId(), lease.ownerToken()));
    c.expireAfter(p, settings.requestTimeout().toNanos());
    CompletableFuture<Boolean> stage = new CompletableFuture<>();
    pendingReleases.add(stage);
    p.reply()
        .whenComplete(
            (reply, failure) -> {
              try {
                stage.complete(released(c, lease, reply, failure, what));
              } catch (RuntimeException e) {
                stage.completeExceptionally(e);
              }
            });
    return stage;
  }

  /**
   * The outcome of a RELEASE marked with {@link ConnectionLeases#startRelease}: its reply, or its
   * failure (a {@link TimeoutException} when no reply came in time).
   */
  private boolean released(
      ClientConnection c,
      LeaseGrant lease,
      @Nullable Reply reply,
      @Nullable Throwable failure,
      String what) {
    if (failure != null) {
      Throwable cause =
          failure instanceof CompletionException && failure.getCause() != null
              ? failure.getCause()
              : failure;
      if (cause instanceof TimeoutException timeout) {
        c.leases().releaseUnknown(lease.ownerToken());
        throw replies.noReply(what, timeout);
      }
      LockProviderException e = Replies.failure(cause);
      if (e instanceof ConnectionLostException && !c.isOpen()) {
        LOG.debug(
            "Connection lost while releasing {}; the server lets go of it with the connection",
            LockIdText.quoted(lease.lockId()));
        c.leases().forget(lease.ownerToken());
        return true;
      }
      // Only the write failed; the connection, and with it the lease, lives on.
      c.leases().releaseUnknown(lease.ownerToken());
      throw e;
    }
    c.leases().forget(lease.ownerToken());
    switch (Objects.requireNonNull(reply, "reply").kind()) {
      case "OK" -> {
        return true;
      }
      case "NOTHELD" -> {
        return false;
      }
      default -> throw replies.refused(what, reply);
    }
  }

  /**
   * Waits up to {@code request-timeout} for the replies to the releases sent by {@link
   * #releaseAsync} and completes their stages, failing those still unanswered.
   */
  void awaitPending() {
    int unconfirmed =
        pendingReleases.awaitThenFail(
            settings.requestTimeout().toNanos(),
            new LockProviderException(
                "provider for "
                    + settings
                    + " was closed before the release was confirmed (waited "
                    + ConnectFailures.requestTimeout(settings)
                    + ")"));
    if (unconfirmed > 0) {
      LOG.warn(
          "Closing the provider for {}: {} release(s) unconfirmed after {}; the server lets go"
              + " of those leases with the connection",
          settings,
          unconfirmed,
          ConnectFailures.requestTimeout(settings));
    }
  }
}
