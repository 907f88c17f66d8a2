package dev.locksmith.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL push wake-ups: one connection per provider that {@code LISTEN}s on the table's channel
 * and wakes the waiters of each released lock id. Started by the first waiter. The connection is
 * checked with a {@code SELECT 1} after every {@value #CHECK_MILLIS} ms without traffic, each
 * statement bounded by as much, since a connection a firewall dropped in silence never fails a read
 * of notifications. When the connection fails it wakes every waiter (they try again and poll until
 * it is back), then reconnects after a back-off of 100 ms doubling up to 5 s; a successful
 * reconnect wakes every waiter again, since notifications sent meanwhile are lost. The connection
 * goes back to its pool with {@code UNLISTEN *}, so that no notifications pile up on it there.
 */
final class PgListener {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcLockProvider.class);
  private static final int READ_MILLIS = 500;
  private static final long MAX_BACK_OFF_MILLIS = 5000;
  private static final int CHECK_MILLIS = 5000;
  private static final int UNLISTEN_MILLIS = 1000;
  private static final Executor DIRECT = Runnable::run;

  /** Opens the listening connection. */
  @FunctionalInterface
  interface Opener {
    Connection open() throws SQLException;
  }

  private final Opener opener;
  private final String channel;
  private final WakeUps wakeUps;
  private final String description;
  private final CountDownLatch closing = new CountDownLatch(1);
  private volatile boolean listening;
  private final AtomicBoolean started = new AtomicBoolean();
  private volatile @Nullable Thread thread;

  PgListener(Opener opener, String channel, WakeUps wakeUps, String description) {
    this.opener = opener;
    this.channel = channel;
    this.wakeUps = wakeUps;
    this.description = description;
  }

  /** Whether notifications arrive now; waiters poll while not. */
  boolean listening() {
    return listening;
  }

  /** Starts the listening thread once. */
  void start() {
    if (closing.getCount() == 0 || started.get() || !started.compareAndSet(false, true)) {
      return;
    }
    Thread listener = new Thread(this::run, "locksmith-jdbc-listener");
    listener.setDaemon(true);
    thread = listener;
    listener.start();
  }

  private void run() {
    long backOff = 100;
    while (closing.getCount() > 0) {
      boolean wasListening = false;
      try (Connection connection = opener.open()) {
        int previousTimeout = connection.getNetworkTimeout();
        boolean previousAutoCommit = connection.getAutoCommit();
        try {
          connection.setNetworkTimeout(DIRECT, CHECK_MILLIS);
          listen(connection);
        } finally {
          wasListening = listening;
          // Waiters try again and poll from now on, not after the clean-up of a broken connection.
          listening = false;
          wakeUps.wakeAll();
          giveBack(connection, previousTimeout, previousAutoCommit);
        }
      } catch (SQLException | RuntimeException e) {
        if (closing.getCount() == 0) {
          return;
        }
        if (wasListening) {
          backOff = 100;
          LOG.info(
              "JDBC {}: listening connection lost, waiters poll until it is back: {}",
              description,
              e.toString());
        } else {
          LOG.debug("JDBC {}: listening connection failed: {}", description, e.toString());
        }
        try {
          if (closing.await(backOff, TimeUnit.MILLISECONDS)) {
            return;
          }
        } catch (InterruptedException interrupted) {
          return;
        }
        backOff = Math.min(backOff * 2, MAX_BACK_OFF_MILLIS);
      }
    }
  }

  /** Listens on {@code connection} until closing, or until the connection fails. */
  private void listen(Connection connection) throws SQLException {
    connection.setAutoCommit(true);
    execute(connection, "LISTEN \"" + channel + "\"");
    PGConnection pg = connection.unwrap(PGConnection.class);
    listening = true;
    wakeUps.wakeAll();
    long heard = System.nanoTime();
    while (closing.getCount() > 0) {
      PGNotification[] notifications = pg.getNotifications(READ_MILLIS);
      if (notifications != null && notifications.length > 0) {
        heard = System.nanoTime();
        for (PGNotification notification : notifications) {
          wakeUps.wake(notification.getParameter());
        }
      } else if (System.nanoTime() - heard >= TimeUnit.MILLISECONDS.toNanos(CHECK_MILLIS)) {
        execute(connection, "SELECT 1");
        heard = System.nanoTime();
      }
    }
  }

  /**
   * Stops listening and restores the network timeout and auto-commit before the connection goes
   * back to its pool (not every pool resets them); a broken connection fails within {@value
   * #UNLISTEN_MILLIS} ms, and its pool discards it.
   */
  private static void giveBack(
      Connection connection, int previousTimeout, boolean previousAutoCommit) {
    try {
      connection.setNetworkTimeout(DIRECT, UNLISTEN_MILLIS);
      execute(connection, "UNLISTEN *");
    } catch (SQLException | RuntimeException e) {
      LOG.debug("Could not stop listening on a connection: {}", e.toString());
    }
    // Each on its own: a connection that failed UNLISTEN may still be healthy and handed out again.
    try {
      if (!previousAutoCommit) {
        connection.setAutoCommit(false);
      }
    } catch (SQLException | RuntimeException e) {
      LOG.debug("Could not restore auto-commit on a connection: {}", e.toString());
    }
    try {
      connection.setNetworkTimeout(DIRECT, previousTimeout);
    } catch (SQLException | RuntimeException e) {
      LOG.debug("Could not restore the network timeout of a connection: {}", e.toString());
    }
  }

  private static void execute(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  /** Stops listening and closes the connection within one read interval. */
  void close() {
    closing.countDown();
    Thread listener = thread;
    if (listener != null) {
      try {
        listener.join(TimeUnit.SECONDS.toMillis(2));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
