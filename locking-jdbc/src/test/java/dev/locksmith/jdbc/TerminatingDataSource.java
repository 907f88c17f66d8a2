package dev.locksmith.jdbc;

import static org.awaitility.Awaitility.await;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Real PostgreSQL connections for one application name which, once {@link #terminateBefore armed},
 * terminate every backend of that application with {@code pg_terminate_backend} the moment one of
 * them prepares the armed statement, and only then prepare it: the statement is sent on a
 * connection the server has already closed, as after an operator or a failover killed a client's
 * connections between two of its statements. Fires once per arming.
 */
final class TerminatingDataSource extends TestDataSource {
  private final String driverUrl;
  private final String application;
  private final String adminUrl;
  private final AtomicReference<@Nullable String> armed = new AtomicReference<>();
  private final AtomicInteger terminated = new AtomicInteger();
  private final CountDownLatch fired = new CountDownLatch(1);

  /**
   * Connections to {@code driverUrl} (a plain PostgreSQL driver URL) named {@code application}, a
   * name no other client of the server uses.
   */
  TerminatingDataSource(String driverUrl, String application) {
    String separator = driverUrl.contains("?") ? "&" : "?";
    this.driverUrl = driverUrl + separator + "ApplicationName=" + application;
    this.adminUrl = driverUrl + separator + "ApplicationName=" + application + "-terminator";
    this.application = application;
  }

  /** Arms the data source: the next preparation of exactly {@code sql} terminates the backends. */
  void terminateBefore(String sql) {
    armed.set(sql);
  }

  /** Counted down once the backends were terminated and gone. */
  CountDownLatch fired() {
    return fired;
  }

  /** How many backends were terminated. */
  int terminated() {
    return terminated.get();
  }

  @Override
  public Connection getConnection() throws SQLException {
    Connection real = DriverManager.getConnection(driverUrl);
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.getName().equals("prepareStatement")
              && args != null
              && args.length > 0
              && args[0] instanceof String sql
              && disarm(sql)) {
            terminateAll();
          }
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
  }

  /** Whether {@code sql} is the armed statement; if so, disarms, once among concurrent callers. */
  private boolean disarm(String sql) {
    String target = armed.get();
    return sql.equals(target) && armed.compareAndSet(target, null);
  }

  /** Terminates every backend of the application and waits until the server has ended them. */
  private void terminateAll() throws SQLException {
    try (Connection admin = DriverManager.getConnection(adminUrl)) {
      List<Integer> pids = new ArrayList<>();
      try (PreparedStatement find =
          admin.prepareStatement("SELECT pid FROM pg_stat_activity WHERE application_name = ?")) {
        find.setString(1, application);
        try (ResultSet rows = find.executeQuery()) {
          while (rows.next()) {
            pids.add(rows.getInt(1));
          }
        }
      }
      try (PreparedStatement terminate = admin.prepareStatement("SELECT pg_terminate_backend(?)")) {
        for (int pid : pids) {
          terminate.setInt(1, pid);
          try (ResultSet rows = terminate.executeQuery()) {
            if (rows.next() && rows.getBoolean(1)) {
              terminated.incrementAndGet();
            }
          }
        }
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> alive(admin, pids) == 0);
    }
    fired.countDown();
  }

  private static int alive(Connection admin, List<Integer> pids) throws SQLException {
    try (PreparedStatement count =
        admin.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY (?)")) {
      count.setArray(1, admin.createArrayOf("integer", pids.toArray()));
      try (ResultSet rows = count.executeQuery()) {
        rows.next();
        return rows.getInt(1);
      }
    }
  }
}
