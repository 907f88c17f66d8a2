package dev.locksmith.tcp.server;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Connection limits, counted per state and per client address. Connections that have not
 * authenticated yet (only when the server has a secret) have a budget of their own, smaller than
 * the one of authenticated connections and limited per address too, so connections that never
 * authenticate cannot take the places real clients need; a connection moves to the authenticated
 * budget when its AUTH succeeds. Thread-safe; called from the event loops.
 */
final class Admission {
  private final ServerSettings settings;
  private final AtomicLong authenticated;
  private final AtomicLong unauthenticated;

  /** Per address: [connections, of which unauthenticated]. */
  private final ConcurrentHashMap<InetAddress, int[]> perAddress = new ConcurrentHashMap<>();

  Admission(ServerSettings settings, ServerMetrics metrics) {
    this.settings = settings;
    this.authenticated = metrics.authenticated;
    this.unauthenticated = metrics.unauthenticated;
  }

  /**
   * Counts a new connection in.
   *
   * @param authRequired whether it must authenticate first (it then counts as unauthenticated)
   * @return null when admitted, else the reason for {@code * BYE <reason>}
   */
  @Nullable String admit(@Nullable InetAddress address, boolean authRequired) {
    AtomicLong budget = authRequired ? unauthenticated : authenticated;
    long limit = authRequired ? settings.maxUnauthenticated() : settings.maxConnections();
    if (budget.incrementAndGet() > limit) {
      budget.decrementAndGet();
      return authRequired ? "too-many-unauthenticated" : "too-many-connections";
    }
    if (address == null) {
      return null;
    }
    String[] refusal = {null};
    perAddress.compute(
        address,
        (key, counts) -> {
          int[] c = counts == null ? new int[2] : counts;
          if (c[0] >= settings.maxConnectionsPerAddress()) {
            refusal[0] = "too-many-from-address";
          } else if (authRequired && c[1] >= settings.maxUnauthenticatedPerAddress()) {
            refusal[0] = "too-many-unauthenticated-from-address";
          } else {
            c[0]++;
            if (authRequired) {
              c[1]++;
            }
          }
          return c[0] == 0 ? null : c;
        });
    if (refusal[0] != null) {
      budget.decrementAndGet();
    }
    return refusal[0];
  }

  /**
   * Moves a connection that authenticated to the authenticated budget.
   *
   * @return null when it fits, else the reason for {@code * BYE <reason>} (it stays counted as
   *     unauthenticated until it closes)
   */
  @Nullable String authenticated(@Nullable InetAddress address) {
    if (authenticated.incrementAndGet() > settings.maxConnections()) {
      authenticated.decrementAndGet();
      return "too-many-connections";
    }
    unauthenticated.decrementAndGet();
    if (address != null) {
      perAddress.computeIfPresent(
          address,
          (key, c) -> {
            c[1]--;
            return c;
          });
    }
    return null;
  }

  /** Counts a closed connection out, in the state it was admitted or moved to. */
  void closed(@Nullable InetAddress address, boolean wasAuthenticated) {
    (wasAuthenticated ? authenticated : unauthenticated).decrementAndGet();
    if (address != null) {
      perAddress.computeIfPresent(
          address,
          (key, c) -> {
            c[0]--;
            if (!wasAuthenticated) {
              c[1]--;
            }
            return c[0] == 0 ? null : c;
          });
    }
  }

  /** How many addresses have connections open (for tests). */
  int addresses() {
    return perAddress.size();
  }
}
