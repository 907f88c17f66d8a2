package dev.locksmith.tcp.server;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What an operator watches: connections (authenticated or not), held locks, detached leases,
 * waiters, grants, releases, expiries, refused AUTHs and connections, and hand-off latency. Gauges
 * are set by their owners (the lock table on the core thread, the admission counters on the event
 * loops); everything is readable from any thread. Shown by the {@code STATS} command and the
 * Prometheus endpoint.
 */
final class ServerMetrics {
  final long startedNanos = System.nanoTime();

  // Gauges.
  final AtomicLong authenticated = new AtomicLong();
  final AtomicLong unauthenticated = new AtomicLong();
  final AtomicLong held = new AtomicLong();
  final AtomicLong detached = new AtomicLong();
  final AtomicLong waiters = new AtomicLong();

  /** When a restarted server's wait for the leases of its run before ends; 0 when it has none. */
  volatile long restartWaitEndNanos;

  // Counters.
  final LongAdder accepted = new LongAdder();
  final LongAdder refusedConnections = new LongAdder();
  final LongAdder grants = new LongAdder();
  final LongAdder releases = new LongAdder();
  final LongAdder disconnectReleases = new LongAdder();

  /**
   * Leases of running work detached and kept until their end because the client did not end the
   * connection (at shutdown too: a restart on the data directory waits for them).
   */
  final LongAdder keptAfterClose = new LongAdder();

  final LongAdder expiries = new LongAdder();
  final LongAdder refusedAuths = new LongAdder();
  final LongAdder authTimeouts = new LongAdder();
  final LongAdder lineTimeouts = new LongAdder();
  final LongAdder requests = new LongAdder();

  /**
   * From the moment a lock was freed (the RELEASE read, the connection's close seen, the lease's
   * end) to the grant to the next waiter handed to its socket.
   */
  final LatencyHistogram handoff = new LatencyHistogram();

  /** The {@code STATS} reply after the request id: one line of {@code name=value} fields. */
  String statsFields() {
    long[] counts = handoff.counts();
    long handoffs = 0;
    for (long c : counts) {
      handoffs += c;
    }
    return "connections="
        + authenticated.get()
        + " unauthenticated="
        + unauthenticated.get()
        + " held="
        + held.get()
        + " detached="
        + detached.get()
        + " waiters="
        + waiters.get()
        + " restart_wait_ms="
        + restartWaitMillis()
        + " requests="
        + requests.sum()
        + " grants="
        + grants.sum()
        + " releases="
        + releases.sum()
        + " disconnect_releases="
        + disconnectReleases.sum()
        + " kept_after_close="
        + keptAfterClose.sum()
        + " expiries="
        + expiries.sum()
        + " refused_auths="
        + refusedAuths.sum()
        + " auth_timeouts="
        + authTimeouts.sum()
        + " line_timeouts="
        + lineTimeouts.sum()
        + " refused_connections="
        + refusedConnections.sum()
        + " handoffs="
        + handoffs
        + " handoff_p50_le_ms="
        + millis(LatencyHistogram.quantileBound(counts, 0.5))
        + " handoff_p99_le_ms="
        + millis(LatencyHistogram.quantileBound(counts, 0.99))
        + " uptime_s="
        + (System.nanoTime() - startedNanos) / 1_000_000_000L;
  }

  /** How long a restarted server still grants nothing, in milliseconds rounded up; 0 when not. */
  long restartWaitMillis() {
    long end = restartWaitEndNanos;
    long left = end == 0 ? 0 : end - System.nanoTime();
    return left <= 0 ? 0 : (left + 999_999) / 1_000_000;
  }

  private static String millis(double seconds) {
    if (Double.isNaN(seconds)) {
      return "-";
    }
    if (Double.isInfinite(seconds)) {
      return "inf";
    }
    return String.format(Locale.ROOT, "%.3f", seconds * 1000).replaceAll("\\.?0+$", "");
  }

  /** The metrics in the Prometheus text exposition format (version 0.0.4). */
  String prometheus() {
    StringBuilder out = new StringBuilder(4096);
    gauge(out, "locksmith_server_connections", "Open connections by authentication state.");
    sample(out, "locksmith_server_connections{state=\"authenticated\"}", authenticated.get());
    sample(out, "locksmith_server_connections{state=\"unauthenticated\"}", unauthenticated.get());
    gauge(
        out,
        "locksmith_server_locks_held",
        "Locks held now, detached leases included.",
        held.get());
    gauge(
        out,
        "locksmith_server_leases_detached",
        "Leases shortened to a minimum hold, held until their end whatever their client does.",
        detached.get());
    gauge(out, "locksmith_server_waiters", "ACQUIREs waiting for a lock.", waiters.get());
    gauge(
        out,
        "locksmith_server_restart_wait_seconds",
        "Seconds, rounded up, a restarted server still grants nothing while the leases of its run"
            + " before may last.",
        (restartWaitMillis() + 999) / 1000);
    counter(
        out,
        "locksmith_server_connections_accepted_total",
        "Connections accepted.",
        accepted.sum());
    counter(
        out,
        "locksmith_server_connections_refused_total",
        "Connections refused by a connection limit.",
        refusedConnections.sum());
    counter(out, "locksmith_server_requests_total", "Request lines handled.", requests.sum());
    counter(out, "locksmith_server_grants_total", "Leases granted.", grants.sum());
    counter(out, "locksmith_server_releases_total", "Leases released, by cause.");
    sample(out, "locksmith_server_releases_total{cause=\"request\"}", releases.sum());
    sample(out, "locksmith_server_releases_total{cause=\"disconnect\"}", disconnectReleases.sum());
    counter(
        out,
        "locksmith_server_kept_after_close_total",
        "Leases of running work kept until their end after a connection the client did not end.",
        keptAfterClose.sum());
    counter(out, "locksmith_server_expiries_total", "Leases that ran out.", expiries.sum());
    counter(
        out,
        "locksmith_server_auth_refused_total",
        "AUTH requests with a wrong secret.",
        refusedAuths.sum());
    counter(
        out,
        "locksmith_server_timeouts_total",
        "Connections closed for not authenticating or not completing a line in time.");
    sample(out, "locksmith_server_timeouts_total{kind=\"auth\"}", authTimeouts.sum());
    sample(out, "locksmith_server_timeouts_total{kind=\"line\"}", lineTimeouts.sum());
    String name = "locksmith_server_handoff_seconds";
    out.append("# HELP ")
        .append(name)
        .append(
            " From a lock freed (release read, connection closed, lease ended) to its grant to the"
                + " next waiter handed to the socket.\n");
    out.append("# TYPE ").append(name).append(" histogram\n");
    long[] counts = handoff.counts();
    long cumulative = 0;
    for (int i = 0; i < counts.length; i++) {
      cumulative += counts[i];
      String le = i < LatencyHistogram.BOUNDS.length ? bound(LatencyHistogram.BOUNDS[i]) : "+Inf";
      sample(out, name + "_bucket{le=\"" + le + "\"}", cumulative);
    }
    out.append(name).append("_sum ").append(handoff.sumSeconds()).append('\n');
    sample(out, name + "_count", cumulative);
    gauge(out, "locksmith_server_uptime_seconds", "Seconds since the server started.");
    out.append("locksmith_server_uptime_seconds ")
        .append((System.nanoTime() - startedNanos) / 1e9)
        .append('\n');
    return out.toString();
  }

  private static String bound(double seconds) {
    return java.math.BigDecimal.valueOf(seconds).stripTrailingZeros().toPlainString();
  }

  private static void gauge(StringBuilder out, String name, String help) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(" gauge\n");
  }

  private static void counter(StringBuilder out, String name, String help) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(" counter\n");
  }

  /** A gauge of one sample. */
  private static void gauge(StringBuilder out, String name, String help, long value) {
    gauge(out, name, help);
    sample(out, name, value);
  }

  /** A counter of one sample. */
  private static void counter(StringBuilder out, String name, String help, long value) {
    counter(out, name, help);
    sample(out, name, value);
  }

  private static void sample(StringBuilder out, String name, long value) {
    out.append(name).append(' ').append(value).append('\n');
  }
}
