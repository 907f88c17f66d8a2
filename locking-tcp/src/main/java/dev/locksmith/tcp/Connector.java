package dev.locksmith.tcp;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LeaseGrant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the provider's one connection: reconnects when it is gone, with one attempt (made by {@link
 * ConnectionOpener}) shared by the callers that come while it runs, and exponential back-off (100
 * ms doubling to 1 s; 5 s after the server rejected the secret) after failed attempts, during which
 * callers fail fast naming the last failure. A connection the server refuses at admission (a full
 * server's {@code BYE too-many-connections}) or closes before sending anything counts as a failed
 * attempt.
 */
final class Connector {
  private static final Logger LOG = LoggerFactory.getLogger(Connector.class);

  /**
   * The longest pause between two connection attempts: a request made after the server is back
   * fails fast for at most this long.
   */
  private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** After the server rejected the secret, which does not fix itself soon. */
  private static final long REJECTED_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);

  /** The longest a closing provider waits for the server to close the connection after QUIT. */
  private static final long QUIT_WAIT_MILLIS = 1_000;

  private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final TcpProviderSettings settings;
  private final ConnectionOpener opener;
  private final ReentrantLock connectLock = new ReentrantLock();
  private volatile @Nullable ClientConnection connection;
  private volatile boolean closed;
  // Guarded by connectLock, which is never held while connecting or waiting.
  private @Nullable CompletableFuture<ClientConnection> attempt;
  private int failures;
  private long nextAttemptNanos;
  private @Nullable RuntimeException lastFailure;
  // The last connection whose end has been counted (a success, or a refusal to back off from).
  private @Nullable ClientConnection counted;

  /**
   * Sets up TLS from the settings without connecting. Fails only for settings that cannot work (TLS
   * that cannot be set up from {@code tls-ca}).
   *
   * @param onLost told of every lease lost with a connection this makes
   */
  Connector(TcpProviderSettings settings, Consumer<LeaseGrant> onLost) {
    this.settings = settings;
    this.opener = new ConnectionOpener(settings, onLost);
  }

  /** The connection last made, open or not, without connecting; null before the first. */
  @Nullable ClientConnection current() {
    return connection;
  }

  /**
   * Runs {@code task} on the I/O thread after {@code nanos}.
   *
   * @throws RejectedExecutionException when there is no I/O thread (never connected, or closed)
   */
  void schedule(Runnable task, long nanos) {
    opener.schedule(task, nanos);
  }

  /**
   * The live connection, connecting (subject to back-off) when there is none. Returns or fails
   * within {@code connect-timeout}: one caller connects, and callers that come meanwhile wait for
   * that attempt instead of starting their own; while backing off after a failed attempt it fails
   * at once, naming the last failure.
   */
  ClientConnection connection() {
    ClientConnection c = connection;
    if (c != null && c.isOpen()) {
      return c;
    }
    long entered = System.nanoTime();
    CompletableFuture<ClientConnection> mine = null;
    CompletableFuture<ClientConnection> theirs;
    connectLock.lock();
    try {
      c = connection;
      if (c != null && c.isOpen()) {
        return c;
      }
      if (closed) {
        throw new LockProviderException("provider for " + settings + " is closed");
      }
      if (c != null && c != counted) {
        counted = c;
        countEnded(c);
      }
      theirs = attempt;
      if (theirs == null) {
        long now = System.nanoTime();
        RuntimeException last = lastFailure;
        if (last != null && now - nextAttemptNanos < 0) {
          throw backingOff(last, TimeUnit.NANOSECONDS.toMillis(nextAttemptNanos - now) + 1);
        }
        mine = new CompletableFuture<>();
        attempt = mine;
      }
    } finally {
      connectLock.unlock();
    }
    if (mine != null) {
      return connectNow(mine);
    }
    // No attempt of this caller's: there was one already, left in theirs above.
    return awaitAttempt(Objects.requireNonNull(theirs), entered);
  }

  /**
   * Counts a connection that has ended: one the server refused at admission (a full server's {@code
   * BYE too-many-connections}) or closed before sending anything (a port forward without a backend)
   * is a failed attempt, backed off from like a refused connect, so such a server is not
   * reconnected to on every call; any other end resets the back-off.
   */
  private void countEnded(ClientConnection c) {
    if (c.refused()) {
      backOff(
          new LockProviderException(
              settings.server() + " refused the connection: " + c.closeReason()));
    } else if (!c.heardAnything()) {
      String reason = c.knownCloseReason();
      backOff(
          new LockProviderException(
              settings.server()
                  + " closed the connection before sending anything"
                  + (reason == null ? "" : ": " + reason)));
    } else {
      failures = 0;
    }
  }

  private ClientConnection connectNow(CompletableFuture<ClientConnection> mine) {
    ClientConnection c;
    try {
      c = opener.open();
    } catch (RuntimeException e) {
      throw failed(mine, e);
    } catch (Error e) {
      connectLock.lock();
      try {
        attempt = null;
      } finally {
        connectLock.unlock();
      }
      mine.completeExceptionally(e);
      throw e;
    }
    RuntimeException failure = null;
    connectLock.lock();
    try {
      attempt = null;
      if (closed) {
        c.close("provider closed", true);
        failure = new LockProviderException("provider for " + settings + " is closed");
      } else {
        // The failure count is reset when the connection ends, unless it was refused (countEnded).
        lastFailure = null;
        connection = c;
      }
    } finally {
      connectLock.unlock();
    }
    if (failure != null) {
      LOG.debug("Connecting to {} failed: {}", settings, failure.getMessage());
      mine.completeExceptionally(failure);
      throw failure;
    }
    mine.complete(c);
    return c;
  }

  /** Records a failed attempt, backs off from it, fails {@code mine}; the failure to throw. */
  private RuntimeException failed(
      CompletableFuture<ClientConnection> mine, RuntimeException failure) {
    connectLock.lock();
    try {
      attempt = null;
      backOff(failure);
    } finally {
      connectLock.unlock();
    }
    LOG.debug("Connecting to {} failed: {}", settings, failure.getMessage());
    mine.completeExceptionally(failure);
    return failure;
  }

  /** Records a failed attempt and when the next may be made; called under connectLock. */
  private void backOff(RuntimeException failure) {
    failures++;
    lastFailure = failure;
    long backoff =
        failure instanceof LockConfigurationException
            ? REJECTED_BACKOFF_NANOS
            : Math.min(MAX_BACKOFF_NANOS, FIRST_BACKOFF_NANOS << Math.min(failures - 1, 16));
    nextAttemptNanos = System.nanoTime() + backoff;
  }

  /**
   * Waits for the attempt another caller is making. It started before this caller came and ends
   * within {@code connect-timeout} of its start, or of the time the server said a wrong secret's
   * answer would come ({@code * DELAYED}), so this returns or fails with it; the wait is cut at
   * twice {@code connect-timeout} plus the longest announced delay believed, only should the
   * attempt somehow hang.
   */
  private ClientConnection awaitAttempt(CompletableFuture<ClientConnection> theirs, long entered) {
    long deadline =
        entered
            + 2 * settings.connectTimeout().toNanos()
            + TimeUnit.MILLISECONDS.toNanos(AnnouncedDelays.MAX_MILLIS);
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return theirs.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (TimeoutException e) {
          throw new LockProviderException(
              settings.server()
                  + " did not complete the connection within "
                  + ConnectFailures.connectTimeout(settings),
              e);
        } catch (ExecutionException e) {
          throw sameFailure(Objects.requireNonNullElse(e.getCause(), e));
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The failure of a shared attempt, thrown anew for another caller, with it as the cause. */
  private static RuntimeException sameFailure(Throwable failure) {
    if (failure instanceof LockConfigurationException e) {
      return new LockConfigurationException(String.valueOf(e.getMessage()), e);
    }
    if (failure instanceof LockProviderException e) {
      return new LockProviderException(String.valueOf(e.getMessage()), e);
    }
    return new LockProviderException("connecting failed: " + failure, failure);
  }

  private static RuntimeException backingOff(RuntimeException last, long millis) {
    String message = last.getMessage() + "; next attempt in " + millis + " ms";
    return last instanceof LockConfigurationException
        ? new LockConfigurationException(message, last)
        : new LockProviderException(message, last);
  }

  /**
   * Ends the connection with {@code QUIT} (waiting at most a second, or {@code request-timeout} if
   * shorter, for the server to close it; not at all on a thread that runs a Netty event loop) and
   * stops the I/O thread; every later {@link #connection} fails. The connection's leases of running
   * work are reported lost on the calling thread before {@code QUIT} is sent, since the server
   * releases them as it reads it.
   */
  void close() {
    closed = true;
    ClientConnection c = connection;
    if (c != null) {
      c.quit(Math.min(QUIT_WAIT_MILLIS, settings.requestTimeout().toMillis()));
    }
    opener.close();
  }
}
