package dev.locksmith.tcp;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.spi.LockProvider;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A Locksmith lock server's counters, as its {@code STATS} command reports them: connections
 * (authenticated or not), held locks, detached leases, waiters, grants, releases, expiries, refused
 * AUTHs and hand-off latency. For status screens:
 *
 * <pre>{@code
 * try (LockProvider provider = LockProviders.create("tcp://locks:7420")) {
 *   TcpServerStats.fetch(provider).ifPresent(stats -> System.out.print(stats.summary()));
 * }
 * }</pre>
 *
 * @param server the server's address, as the provider describes it
 * @param fields every {@code name=value} field of the reply, in order; names this version does not
 *     know are kept too
 */
public record TcpServerStats(String server, Map<String, String> fields) {

  /**
   * Copies the fields.
   *
   * @param server the server's address, as the provider describes it
   * @param fields every {@code name=value} field of the reply, in order
   */
  public TcpServerStats {
    fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
  }

  /**
   * Asks the server behind a {@code tcp://} provider for its counters.
   *
   * @param provider a {@code tcp://} provider
   * @return the counters, or empty when {@code provider} is not a {@code tcp://} provider
   * @throws LockProviderException when the server cannot be reached or refuses
   */
  public static Optional<TcpServerStats> fetch(LockProvider provider) {
    if (provider instanceof TcpLockProvider tcp) {
      return Optional.of(tcp.serverStats());
    }
    return Optional.empty();
  }

  /** Parses the fields of a {@code STATS} reply (after the id and the word STATS). */
  static TcpServerStats parse(String server, String reply) {
    Map<String, String> fields = new LinkedHashMap<>();
    for (String field : reply.trim().split("\\s+")) {
      int eq = field.indexOf('=');
      if (eq > 0) {
        fields.put(field.substring(0, eq), field.substring(eq + 1));
      }
    }
    return new TcpServerStats(server, fields);
  }

  /**
   * A numeric field, or -1 when the server did not send it.
   *
   * @param name the field's name
   * @return its value, or -1 when the server did not send it
   */
  public long count(String name) {
    String value = fields.get(name);
    if (value == null) {
      return -1;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Authenticated connections open now.
   *
   * @return authenticated connections open now
   */
  public long connections() {
    return count("connections");
  }

  /**
   * Connections open now that have not authenticated yet.
   *
   * @return connections open now that have not authenticated yet
   */
  public long unauthenticatedConnections() {
    return count("unauthenticated");
  }

  /**
   * Locks held now, detached leases included.
   *
   * @return locks held now, detached leases included
   */
  public long heldLocks() {
    return count("held");
  }

  /**
   * Leases kept for a minimum hold, held until their end whatever their client does.
   *
   * @return leases kept for a minimum hold, held until their end whatever their client does
   */
  public long detachedLeases() {
    return count("detached");
  }

  /**
   * How long a restarted server still grants nothing, while the leases its run before granted may
   * still be held: 0 when it grants, -1 from a server that does not say.
   *
   * @return milliseconds the server still grants nothing, 0 when it grants, -1 when not known
   */
  public long restartWaitMillis() {
    return count("restart_wait_ms");
  }

  /**
   * ACQUIREs waiting now.
   *
   * @return aCQUIREs waiting now
   */
  public long waiters() {
    return count("waiters");
  }

  /**
   * Request lines read since the start, rejected ones included; one {@code ACQUIRE-ALL} of several
   * locks is one request.
   *
   * @return request lines read since the start, rejected ones included; one {@code ACQUIRE-ALL} of
   *     several locks is one request
   */
  public long requests() {
    return count("requests");
  }

  /**
   * Leases granted since the start.
   *
   * @return leases granted since the start
   */
  public long grants() {
    return count("grants");
  }

  /**
   * Leases released by RELEASE since the start.
   *
   * @return leases released by RELEASE since the start
   */
  public long releases() {
    return count("releases");
  }

  /**
   * Leases that ran out since the start.
   *
   * @return leases that ran out since the start
   */
  public long expiries() {
    return count("expiries");
  }

  /**
   * AUTH requests with a wrong secret since the start.
   *
   * @return AUTH requests with a wrong secret since the start
   */
  public long refusedAuths() {
    return count("refused_auths");
  }

  /**
   * The bucket bound at or below which half of the hand-offs (a lock freed to its grant to the next
   * waiter sent) took, or empty before the first hand-off.
   *
   * @return the bucket bound at or below which half of the hand-offs (a lock freed to its grant to
   *     the next waiter sent) took, or empty before the first hand-off
   */
  public Optional<Duration> handoffP50() {
    return millis("handoff_p50_le_ms");
  }

  /**
   * As {@link #handoffP50()}, for 99% of the hand-offs.
   *
   * @return as {@link #handoffP50()}, for 99% of the hand-offs
   */
  public Optional<Duration> handoffP99() {
    return millis("handoff_p99_le_ms");
  }

  /**
   * How long the server has been running.
   *
   * @return how long the server has been running
   */
  public Duration uptime() {
    return Duration.ofSeconds(Math.max(0, count("uptime_s")));
  }

  private Optional<Duration> millis(String name) {
    String value = fields.get(name);
    if (value == null || value.equals("-") || value.equals("inf")) {
      return Optional.empty();
    }
    try {
      return Optional.of(Duration.ofNanos(Math.round(Double.parseDouble(value) * 1_000_000)));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /**
   * A few lines for a status screen, each ending in a newline.
   *
   * @return a few lines for a status screen, each ending in a newline
   */
  public String summary() {
    StringBuilder out = new StringBuilder();
    Duration up = uptime();
    out.append(
        String.format(
            Locale.ROOT,
            "Lock server %s, up %dd %02dh %02dm%n",
            server,
            up.toDays(),
            up.toHoursPart(),
            up.toMinutesPart()));
    line(
        out,
        "connections",
        "%,d authenticated, %,d not yet (%,d refused by a limit since the start)",
        connections(),
        unauthenticatedConnections(),
        count("refused_connections"));
    line(
        out,
        "locks",
        "%,d held (%,d kept for a minimum hold), %,d waiting",
        heldLocks(),
        detachedLeases(),
        waiters());
    if (restartWaitMillis() > 0) {
      line(
          out,
          "restart",
          "granting nothing for %,d ms more: leases of the server's run before may still be held",
          restartWaitMillis());
    }
    line(
        out,
        "since start",
        "%,d grants, %,d releases, %,d released by a closed connection, %,d kept after a close,"
            + " %,d expired",
        grants(),
        releases(),
        count("disconnect_releases"),
        count("kept_after_close"),
        expiries());
    line(
        out,
        "refused",
        "%,d wrong secrets, %,d AUTH timeouts, %,d line timeouts",
        refusedAuths(),
        count("auth_timeouts"),
        count("line_timeouts"));
    out.append(
        String.format(
            Locale.ROOT,
            "  %-12s %,d hand-offs, p50 <= %s, p99 <= %s%n",
            "hand-off",
            count("handoffs"),
            fields.getOrDefault("handoff_p50_le_ms", "-") + " ms",
            fields.getOrDefault("handoff_p99_le_ms", "-") + " ms"));
    return out.toString();
  }

  private static void line(StringBuilder out, String label, String format, Object... args) {
    out.append(String.format(Locale.ROOT, "  %-12s " + format + "%n", prepend(label, args)));
  }

  private static Object[] prepend(String label, Object[] args) {
    Object[] all = new Object[args.length + 1];
    all[0] = label;
    System.arraycopy(args, 0, all, 1, args.length);
    return all;
  }
}
