package dev.locksmith.tcp.server;

import java.util.concurrent.ScheduledFuture;
import org.jspecify.annotations.Nullable;

/** A queued ACQUIRE; core thread only. */
final class Waiter {
  final Session session;
  final Request.Acquire request;
  final String ownerToken;

  /** When the wait runs out, on the {@link System#nanoTime()} clock. */
  final long deadline;

  @Nullable ScheduledFuture<?> timer;

  Waiter(Session session, Request.Acquire request, String ownerToken, long deadline) {
    this.session = session;
    this.request = request;
    this.ownerToken = ownerToken;
    this.deadline = deadline;
  }
}
