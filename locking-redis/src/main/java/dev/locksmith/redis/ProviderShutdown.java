package dev.locksmith.redis;

import dev.locksmith.core.Durations;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.Uninterruptibly;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a provider closes: it wakes its waiters and drops its subscriptions, lets its acquires and
 * synchronous releases in flight finish, waits for the answers of its releases in flight and of the
 * compensating releases (of failed acquires, and of grants that came after the close), at most
 * {@link #CLOSE_WAIT} in all, and, when it created the client, shuts the client down, in that
 * order.
 */
final class ProviderShutdown {
  // Logged under the provider's name, as operators configure it.
  private static final Logger LOG = LoggerFactory.getLogger(RedisLockProvider.class);

  /**
   * How long {@link #run()} waits for the answers of releases in flight: 15 s, longer than the
   * bound on one command with the URL's default settings (2 s, see {@link RedisUrl#worstCase}). A
   * supplied client left on Redisson 4's defaults ({@code timeout} 3 s, 4 retries 1-2 s apart) may
   * retry a command for up to 23 s: a release still unanswered at 15 s is failed here, and its
   * lease ends by its TTL at the latest.
   */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(15);

  private final RedissonClient client;
  private final boolean ownsClient;
  private final String description;
  private final AcquiresInFlight acquires;
  private final PendingReleases pendingReleases;
  private final Compensations compensations;
  private final WakeUps wakeUps;
  private final FirstContact firstContact;

  ProviderShutdown(
      RedissonClient client,
      boolean ownsClient,
      String description,
      AcquiresInFlight acquires,
      PendingReleases pendingReleases,
      Compensations compensations,
      WakeUps wakeUps,
      FirstContact firstContact) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.description = description;
    this.acquires = acquires;
    this.pendingReleases = pendingReleases;
    this.compensations = compensations;
    this.wakeUps = wakeUps;
    this.firstContact = firstContact;
  }

  /**
   * Closes the provider to new calls ({@link AcquiresInFlight#close}) and, on the first call only,
   * {@link #run()}s without reacting to interrupts.
   */
  void close() {
    if (acquires.close()) {
      // Its waits are no wait of the caller's: an interrupt already set would cut each at once and
      // shut the client down under the acquires and releases in flight.
      Uninterruptibly.call(
          () -> {
            run();
            return Boolean.TRUE;
          });
    }
  }

  /**
   * Wakes the waiters (which throw at once, holding nothing) and drops the subscriptions; then
   * waits for the acquires in flight, which give back what they took, and for the releases in
   * flight, failing those still unanswered after {@link #CLOSE_WAIT} with a {@link
   * LockProviderException} ("provider closed"), and for the compensations; then shuts an owned
   * client down.
   */
  private void run() {
    long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
    // First, so that no waiter sits out the wait for releases sent to an unreachable server.
    wakeUps.close();
    await(acquires::awaitNone, deadline, "acquire(s) and release(s)");
    try {
      int failed = pendingReleases.drain(deadline, description);
      if (failed > 0) {
        LOG.warn(
            "Redis {}: closed with {} release(s) unanswered after {}; those leases end by their"
                + " TTL at the latest",
            description,
            failed,
            Durations.format(CLOSE_WAIT));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      pendingReleases.failUnanswered(description);
    }
    await(compensations::awaitAnswered, deadline, "release(s) of failed acquires");
    firstContact.close();
    if (ownsClient) {
      try {
        client.shutdown(0, 2, TimeUnit.SECONDS);
      } catch (RuntimeException e) {
        LOG.debug("Shutting down the Redisson client of {} failed: {}", description, e.toString());
      }
    }
  }

  /** A wait of the close: how many of its calls were still unanswered at the deadline. */
  @FunctionalInterface
  private interface Await {
    int unansweredAt(long deadline) throws InterruptedException;
  }

  /**
   * Waits for {@code calls}, the acquires in flight or the compensating releases of failed acquires
   * ({@link Compensations}), until {@code deadline}: with the client shut down under them, an
   * acquire's reply or a release's command was cut, and the lock stayed held for its whole TTL (a
   * {@code locksmith run} whose acquire timed out closes its provider at once).
   */
  private void await(Await calls, long deadline, String what) {
    try {
      int unanswered = calls.unansweredAt(deadline);
      if (unanswered > 0) {
        LOG.warn(
            "Redis {}: closed with {} {} unanswered; a lock they hold ends by its TTL at the"
                + " latest",
            description,
            unanswered,
            what);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
