package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.Locksmith;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The lock and {@code @Transactional} on an embedded H2 database: the next holder of a lock always
 * reads what the previous holder committed.
 */
@SpringBootTest(
    classes = TransactionOrderingTest.App.class,
    properties = {
      "locksmith.url=mem:transaction-ordering",
      "spring.datasource.url=jdbc:h2:mem:locks;DB_CLOSE_DELAY=-1"
    })
class TransactionOrderingTest {
  @Autowired Counter counter;
  @Autowired Outer outer;
  @Autowired JdbcTemplate jdbc;
  @Autowired CommittedAtRelease committedAtRelease;
  @Autowired Locksmith locksmith;

  @BeforeEach
  void resetCounter() {
    jdbc.execute("create table if not exists counter (id varchar(32) primary key, v int)");
    jdbc.update("delete from counter");
    jdbc.update("insert into counter values ('own', 0), ('joined', 0)");
    committedAtRelease.values.clear();
  }

  @Test
  void lockWrapsTheMethodsOwnTransaction() {
    assertThat(counter.incrementInOwnTransaction()).isEqualTo(1);
    assertThat(committedAtRelease.values).containsEntry("own", 1);
  }

  @Test
  void releaseWaitsForTheJoinedTransaction() {
    outer.run(() -> assertThat(counter.incrementJoined()).isEqualTo(1));
    assertThat(committedAtRelease.values).containsEntry("joined", 1);
  }

  @Test
  void nextHolderReadsCommittedData() throws Exception {
    // Two threads of the test's own: on a 2-core machine the common pool may have one thread,
    // which the first caller keeps while it waits for the second.
    ExecutorService callers = Executors.newFixedThreadPool(2);
    try {
      CountDownLatch firstIncremented = new CountDownLatch(1);
      CompletableFuture<Integer> first =
          CompletableFuture.supplyAsync(
              () ->
                  outer.call(
                      () -> {
                        int value = counter.incrementJoined();
                        firstIncremented.countDown();
                        // Commit only once the second caller waits for the lock.
                        await()
                            .atMost(Duration.ofSeconds(20))
                            .until(
                                () ->
                                    locksmith.providers().get("").status("counter-joined").waiters()
                                        > 0);
                        return value;
                      }),
              callers);
      assertThat(firstIncremented.await(20, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Integer> second =
          CompletableFuture.supplyAsync(() -> outer.call(counter::incrementJoined), callers);

      assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(1);
      assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo(2);
      assertThat(jdbc.queryForObject("select v from counter where id = 'joined'", Integer.class))
          .isEqualTo(2);
    } finally {
      callers.shutdownNow();
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {
    @Bean
    Counter counter(JdbcTemplate jdbc) {
      return new Counter(jdbc);
    }

    @Bean
    Outer outer() {
      return new Outer();
    }

    @Bean
    CommittedAtRelease committedAtRelease(DataSource dataSource) {
      return new CommittedAtRelease(dataSource);
    }
  }

  /** Read-modify-write of a row under a lock. */
  public static class Counter {
    private final JdbcTemplate jdbc;

    Counter(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    @Transactional
    @DistributedLock(name = "counter-own", key = "'x'")
    public int incrementInOwnTransaction() {
      return increment("own");
    }

    @Transactional
    @DistributedLock(name = "counter-joined")
    public int incrementJoined() {
      return increment("joined");
    }

    private int increment(String id) {
      assertThat(TransactionSynchronizationManager.isActualTransactionActive()).isTrue();
      Integer value = jdbc.queryForObject("select v from counter where id = ?", Integer.class, id);
      int next = (value == null ? 0 : value) + 1;
      jdbc.update("update counter set v = ? where id = ?", next, id);
      return next;
    }
  }

  /** A caller that opens the transaction the locked method joins. */
  public static class Outer {
    @Transactional
    public <T> T call(java.util.function.Supplier<T> work) {
      return work.get();
    }

    @Transactional
    public void run(Runnable work) {
      work.run();
    }
  }

  /** Reads, on a connection of its own, what is committed when a lock is released. */
  static final class CommittedAtRelease implements LockListener {
    final Map<String, Integer> values = new ConcurrentHashMap<>();
    private final DataSource dataSource;

    CommittedAtRelease(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    @Override
    public void released(LockEvent event, Duration held) {
      String id = event.name().equals("counter-own") ? "own" : "joined";
      try (Connection connection = dataSource.getConnection();
          PreparedStatement statement =
              connection.prepareStatement("select v from counter where id = ?")) {
        statement.setString(1, id);
        try (ResultSet rows = statement.executeQuery()) {
          rows.next();
          values.put(id, rows.getInt(1));
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
