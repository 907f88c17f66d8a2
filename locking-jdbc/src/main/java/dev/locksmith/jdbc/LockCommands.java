package dev.locksmith.jdbc;

import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockIdText;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.core.spi.LockStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock operations as SQL, each one statement (two on databases whose take-or-refuse cannot
 * return its result) on a connection of its own ({@link Connector}).
 *
 * <p>A grant's local deadline is the {@code nanoTime} just before its statement was sent plus the
 * TTL: the database computes the lease's end from its own clock when the statement arrives, which
 * is later, so the local deadline is conservative whatever the offset between the two clocks.
 */
final class LockCommands {
  private static final Logger LOG = LoggerFactory.getLogger(LockCommands.class);

  /**
   * One try at a lock.
   *
   * @param grant the grant, or {@code null} when another owner holds the lock
   * @param holderLeftMicros how long the holder's lease has left, or -1 when not known
   */
  record Attempt(@Nullable LeaseGrant grant, long holderLeftMicros) {}

  private final Connector connector;

  LockCommands(Connector connector) {
    this.connector = connector;
  }

  /**
   * Takes the lock if free. Retried after a connection failure: the same owner token takes its own
   * lease again (with a new fencing token), so a grant whose reply was lost is not lost. The
   * deadline counts from the first run's send.
   */
  Attempt acquire(LockRequest request) {
    FirstSend firstSend = new FirstSend();
    Connector.Work<Attempt> work =
        (connection, sql) -> acquire(connection, sql, request, firstSend);
    return connector.call("acquire", request.lockId(), work, work);
  }

  private static Attempt acquire(
      Connection connection, LockSql sql, LockRequest request, FirstSend firstSend)
      throws SQLException {
    String id = LockIds.stored(request.lockId());
    try (PreparedStatement take = connection.prepareStatement(sql.acquire())) {
      take.setString(1, id);
      take.setString(2, request.ownerToken());
      take.setString(3, LockIds.owner(request.owner()));
      take.setLong(4, LockIds.micros(request.ttl()));
      long sentAt = firstSend.mark();
      if (sql.dialect().acquireReturnsToken()) {
        try (ResultSet rows = take.executeQuery()) {
          return rows.next()
              ? new Attempt(grant(request, rows.getLong(1), sentAt), -1)
              : new Attempt(null, -1);
        }
      }
      take.executeUpdate();
      try (PreparedStatement read = connection.prepareStatement(sql.readBack())) {
        read.setString(1, id);
        try (ResultSet rows = read.executeQuery()) {
          if (!rows.next()) {
            return new Attempt(null, -1);
          }
          if (request.ownerToken().equals(rows.getString(1))) {
            return new Attempt(grant(request, rows.getLong(2), sentAt), -1);
          }
          return new Attempt(null, Math.max(0, rows.getLong(3)));
        }
      }
    }
  }

  private static LeaseGrant grant(LockRequest request, long token, long sentAt) {
    return request.granted(token, sentAt);
  }

  /** How long the holder of {@code lockId} has left in microseconds; 0 when free. */
  long holderLeftMicros(String lockId) {
    // A read, so retried after a connection failure like the writes that are safe to repeat.
    Connector.Work<Long> read =
        (connection, sql) -> {
          try (PreparedStatement remaining = connection.prepareStatement(sql.remaining())) {
            remaining.setString(1, LockIds.stored(lockId));
            try (ResultSet rows = remaining.executeQuery()) {
              return rows.next() ? Math.max(0, rows.getLong(1)) : 0L;
            }
          }
        };
    return connector.call("status", lockId, read, read);
  }

  /**
   * Extends a live lease; idempotent, so retried after a connection failure. The new deadline
   * counts from the first run's send.
   *
   * <p>A shortening (to a minimum hold) whose first run was sent early enough for the end it asked
   * for to come before the lease's deadline counts as done when its retry no longer finds this
   * owner's lease: the lease was held at least until that end, by the first run or by its TTL, and
   * has since ended, so a waiter may have taken the lock, as it should.
   */
  Optional<LeaseGrant> renew(LeaseGrant lease, Duration ttl) {
    FirstSend firstSend = new FirstSend();
    return connector.call(
        "renew",
        lease.lockId(),
        (connection, sql) -> renew(connection, sql, lease, ttl, firstSend),
        (connection, sql) -> {
          boolean shortenedInTime = firstSend.before(lease.deadlineNanos() - ttl.toNanos());
          Optional<LeaseGrant> renewed = renew(connection, sql, lease, ttl, firstSend);
          return renewed.isEmpty() && shortenedInTime
              ? Optional.of(lease.renewed(ttl, firstSend.mark() + ttl.toNanos()))
              : renewed;
        });
  }

  private static Optional<LeaseGrant> renew(
      Connection connection, LockSql sql, LeaseGrant lease, Duration ttl, FirstSend firstSend)
      throws SQLException {
    try (PreparedStatement renew = connection.prepareStatement(sql.renew())) {
      renew.setLong(1, LockIds.micros(ttl));
      renew.setString(2, LockIds.stored(lease.lockId()));
      renew.setString(3, lease.ownerToken());
      renew.setLong(4, lease.fencingToken());
      long sentAt = firstSend.mark();
      if (renew.executeUpdate() != 1) {
        return Optional.empty();
      }
      String notify = sql.wakeWaiters();
      if (notify != null && lease.timeLeftAt(sentAt).compareTo(ttl) > 0) {
        // Shortened (to a minimum hold): waiters sleep until the end they last read.
        wakeWaiters(connection, notify, lease.lockId());
      }
      return Optional.of(lease.renewed(ttl, sentAt + ttl.toNanos()));
    }
  }

  /**
   * Wakes the lock's waiters; a failure is only logged: the renewal it follows has committed, and
   * the waiters then wake at the end they last read.
   */
  private static void wakeWaiters(Connection connection, String notify, String lockId) {
    try (PreparedStatement wake = connection.prepareStatement(notify)) {
      wake.setString(1, LockIds.stored(lockId));
      wake.executeQuery().close();
    } catch (SQLException e) {
      LOG.debug(
          "Waking the waiters of lock {} after shortening it failed: {}",
          LockIdText.quoted(lockId),
          e.toString());
    }
  }

  /**
   * Ends a live lease. After a connection failure the retry ends the lease if this owner's row is
   * still there, so a release whose first run went through but whose reply was lost reports {@code
   * true}, as that run would have. When the row is another owner's by then (a waiter took the lock
   * the first run freed), the lease counts as released if the first run was sent before its
   * deadline: it was held until then, and ended on the store by that run or by its TTL, never by
   * another owner while it was held.
   */
  boolean release(LeaseGrant lease) {
    FirstSend firstSend = new FirstSend();
    return connector.call(
        "release",
        lease.lockId(),
        (connection, sql) -> {
          firstSend.mark();
          return release(connection, sql, sql.release(), lease, -1);
        },
        (connection, sql) ->
            release(connection, sql, sql.releaseOwned(), lease, heldSince(firstSend))
                || firstSend.before(lease.deadlineNanos()));
  }

  /**
   * How long ago, in microseconds, the lease must still have been held for a retried release to
   * count it as released: since the first run was sent (it may have ended the lease then), plus
   * {@link #RELEASE_CLOCK_SLACK_MICROS} for the database's and this host's clocks running apart;
   * just the slack when nothing was sent.
   */
  private static long heldSince(FirstSend firstSend) {
    return firstSend.microsAgo() + RELEASE_CLOCK_SLACK_MICROS;
  }

  private static final long RELEASE_CLOCK_SLACK_MICROS = 100_000;

  /**
   * Runs a release statement; {@code heldSinceMicros} is the last parameter of {@link
   * LockSql#releaseOwned}, or negative for {@link LockSql#release}.
   */
  private static boolean release(
      Connection connection, LockSql sql, String statement, LeaseGrant lease, long heldSinceMicros)
      throws SQLException {
    try (PreparedStatement release = connection.prepareStatement(statement)) {
      release.setString(1, LockIds.stored(lease.lockId()));
      release.setString(2, lease.ownerToken());
      release.setLong(3, lease.fencingToken());
      if (heldSinceMicros >= 0) {
        release.setLong(4, heldSinceMicros);
      }
      if (sql.releaseReturnsRows()) {
        try (ResultSet rows = release.executeQuery()) {
          return rows.next();
        }
      }
      return release.executeUpdate() == 1;
    }
  }

  /**
   * After an acquire whose outcome is unknown: ends the lease if {@code request}'s owner token
   * holds it. Whether a grant happened is not known, so it matches the owner token alone.
   */
  void abandon(LockRequest request) {
    connector.call(
        "clean-up after a failed acquire",
        request.lockId(),
        (connection, sql) -> {
          try (PreparedStatement read = connection.prepareStatement(sql.readBack())) {
            read.setString(1, LockIds.stored(request.lockId()));
            try (ResultSet rows = read.executeQuery()) {
              if (!rows.next() || !request.ownerToken().equals(rows.getString(1))) {
                return false;
              }
              long token = rows.getLong(2);
              LeaseGrant granted =
                  new LeaseGrant(request.lockId(), request.ownerToken(), token, request.ttl(), 0);
              // A live ghost lease is ended; one that has expired needs nothing.
              return release(connection, sql, sql.releaseOwned(), granted, 0);
            }
          }
        },
        null);
  }

  LockStatus status(String lockId) {
    return connector.call(
        "status",
        lockId,
        (connection, sql) -> {
          try (PreparedStatement read = connection.prepareStatement(sql.status())) {
            read.setString(1, LockIds.stored(lockId));
            try (ResultSet rows = read.executeQuery()) {
              if (!rows.next()) {
                return new LockStatus(lockId, null, -1);
              }
              return new LockStatus(lockId, holder(rows, 1), -1);
            }
          }
        },
        null);
  }

  List<LockStatus> listHeld() {
    return connector.call(
        "list",
        "*",
        (connection, sql) -> {
          List<LockStatus> held = new ArrayList<>();
          try (PreparedStatement read = connection.prepareStatement(sql.listHeld());
              ResultSet rows = read.executeQuery()) {
            while (rows.next()) {
              held.add(new LockStatus(rows.getString(1), holder(rows, 2), -1));
            }
          }
          return held;
        },
        null);
  }

  private static LockStatus.Holder holder(ResultSet rows, int first) throws SQLException {
    return new LockStatus.Holder(
        rows.getString(first),
        rows.getLong(first + 1),
        Duration.ofNanos(Math.max(0, rows.getLong(first + 2)) * 1000));
  }
}
