package dev.locksmith.tcp.server;

import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's authentication, when the server has a secret: the deadline to authenticate, the
 * AUTH itself (moving the connection to the authenticated budget of {@link Admission}, or closing
 * it when that budget is full), and wrong secrets, answered only after the {@link AuthThrottle}'s
 * delay (announced at once with {@code * DELAYED <id> <ms>}) and then closed; until that answer the
 * connection keeps its place in {@link Admission}, even if the client closes it first. Without a
 * secret every AUTH is answered OK. Event loop only.
 */
final class Authentication {
  private static final Logger LOG = LoggerFactory.getLogger(ServerHandler.class);

  private final ServerRuntime server;
  private final ServerSettings settings;
  private final ServerMetrics metrics;
  private final CoreHandOver toCore;
  private @Nullable ScheduledFuture<?> deadline;

  Authentication(ServerRuntime server, ServerSettings settings, CoreHandOver toCore) {
    this.server = server;
    this.settings = settings;
    this.metrics = server.metrics();
    this.toCore = toCore;
  }

  /** Runs {@code timedOut} on the event loop when {@code auth-timeout} passes before AUTH. */
  void startDeadline(ChannelHandlerContext ctx, Runnable timedOut) {
    deadline =
        ctx.executor()
            .schedule(
                () -> {
                  deadline = null;
                  timedOut.run();
                },
                settings.authTimeout().toNanos(),
                TimeUnit.NANOSECONDS);
  }

  /** Stops the deadline: the connection authenticated, failed to, or closed. */
  void cancelDeadline() {
    ScheduledFuture<?> pending = deadline;
    if (pending != null) {
      pending.cancel(false);
      deadline = null;
    }
  }

  /**
   * Handles an AUTH read from the connection; its answer goes out from the core thread in request
   * order.
   */
  void authenticate(ChannelHandlerContext ctx, Session current, Request.Auth auth) {
    Secret secret = settings.secret();
    if (secret == null || secret.matches(auth.secret())) {
      if (!current.authenticated) {
        String refusal = server.admission().authenticated(current.address);
        if (refusal != null) {
          LOG.warn("Connection {} authenticated but the server is full: {}", current, refusal);
          current.closing = true;
          toCore.submit(
              ctx,
              current,
              () -> {
                current.send(
                    auth.id()
                        + " ERR LIMIT the server has "
                        + settings.maxConnections()
                        + " authenticated connections already");
                current.sendAndClose("* BYE " + refusal);
              },
              null);
          return;
        }
        current.authenticated = true;
        cancelDeadline();
      }
      current.errors = 0;
      toCore.enqueue(current, () -> current.send(auth.id() + " OK"), null);
      return;
    }
    metrics.refusedAuths.increment();
    long delay = server.authThrottle().failed(current.address);
    current.closing = true;
    cancelDeadline();
    // The connection keeps its place in the address's budget until the answer, even if the client
    // resets it first: a guesser that takes a missing OK for "wrong" gains nothing by not waiting.
    Runnable answer =
        () -> {
          server.admission().closed(current.address, current.authenticated);
          if (ctx.channel().isActive()) {
            toCore.submit(
                ctx,
                current,
                () ->
                    current.sendAndClose(
                        auth.id() + " ERR AUTH wrong secret; closing the connection"),
                null);
          }
        };
    try {
      ctx.executor().schedule(answer, delay, TimeUnit.MILLISECONDS);
      current.admissionKeptForAnswer = true;
    } catch (RejectedExecutionException e) {
      ctx.close();
      return;
    }
    // Said at once, in request order, so that a client waiting for the answer within a deadline
    // waits for it and reports a wrong secret, not a silent server. It tells a guesser nothing the
    // missing OK does not: a right secret is answered at once.
    String notice = "* DELAYED " + auth.id() + " " + delay;
    toCore.enqueue(current, () -> current.send(notice), null);
  }
}
