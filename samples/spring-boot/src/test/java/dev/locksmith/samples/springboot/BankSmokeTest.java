package dev.locksmith.samples.springboot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The whole application on a random port, with the file lock provider in a fresh directory and an
 * in-memory H2 database: concurrent transfers over HTTP keep every balance exact, and the scheduled
 * report runs under its lock and skips while someone else holds it.
 */
@SpringBootTest(
    webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.datasource.url=jdbc:h2:mem:bank-smoke;DB_CLOSE_DELAY=-1",
      "bank.report.cron=* * * * * *",
      "bank.report.min-hold=300ms",
      "bank.transfer.wait-timeout=20s"
    })
class BankSmokeTest {
  private static final List<String> ACCOUNTS = List.of("alice", "bob", "carol");
  private static final long INITIAL_CENTS = 10_000;
  private static final int THREADS = 8;
  private static final int TRANSFERS_PER_THREAD = 25;

  @LocalServerPort int port;
  @Autowired JdbcTemplate jdbc;
  @Autowired Locksmith locksmith;
  @Autowired BalanceReportJob job;
  @Autowired LockEvents events;

  private final HttpClient http = HttpClient.newHttpClient();

  @DynamicPropertySource
  static void lockDirectory(DynamicPropertyRegistry registry) {
    registry.add("locksmith.url", () -> "file://" + freshLockDirectory());
  }

  @Test
  void concurrentTransfersKeepEveryBalanceExact() throws Exception {
    int accountLocksBefore = events.acquired("account");
    CountDownLatch start = new CountDownLatch(1);
    List<Future<List<Sent>>> threads = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    List<Sent> sent = new ArrayList<>();
    try {
      for (int t = 0; t < THREADS; t++) {
        Random random = new Random(t);
        threads.add(pool.submit(() -> sendTransfers(random, start)));
      }
      start.countDown();
      for (Future<List<Sent>> thread : threads) {
        sent.addAll(thread.get(60, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(sent).hasSize(THREADS * TRANSFERS_PER_THREAD);
    // 200: moved; 409: refused, the account would have gone below zero. Nothing else.
    assertThat(sent).extracting(Sent::status).containsOnly(200, 409);
    assertThat(sent).filteredOn(s -> s.status() == 200).hasSizeGreaterThan(THREADS);

    Map<String, Long> expected = new HashMap<>();
    ACCOUNTS.forEach(a -> expected.put(a, INITIAL_CENTS));
    for (Sent s : sent) {
      if (s.status() == 200) {
        expected.merge(s.from(), -s.cents(), Long::sum);
        expected.merge(s.to(), s.cents(), Long::sum);
      }
    }
    Map<String, Long> balances = balances();
    // A lost update (two requests reading the same balance) would break this exact match.
    assertThat(balances).isEqualTo(expected);
    assertThat(balances.values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(INITIAL_CENTS * ACCOUNTS.size());
    assertThat(balances.values()).allSatisfy(b -> assertThat(b).isNotNegative());
    // Every request took both account locks, one after the other.
    assertThat(events.acquired("account") - accountLocksBefore).isEqualTo(2 * sent.size());
  }

  @Test
  void reportRunsUnderItsLockAndSkipsWhileItIsHeld() throws Exception {
    await().atMost(Duration.ofSeconds(20)).until(() -> job.runs() > 0);
    BalanceReport report = job.latest().orElseThrow();
    assertThat(report.lockId()).isEqualTo("bank-report");
    assertThat(report.fencingToken()).isPositive();
    assertThat(report.totalCents()).isEqualTo(INITIAL_CENTS * ACCOUNTS.size());

    // Hold the job's lock as another owner would (another instance), and call the job: it skips.
    int runsWhileHeld;
    int busyBefore = events.busy("bank-report");
    try (Lease held = locksmith.acquire(LockOptions.named("bank-report"))) {
      runsWhileHeld = job.runs();
      // From another thread: the lock is reentrant for the thread that holds it.
      CompletableFuture.runAsync(job::report).get(20, TimeUnit.SECONDS);
      assertThat(job.runs()).isEqualTo(runsWhileHeld);
      assertThat(events.busy("bank-report")).isGreaterThan(busyBefore);
      assertThat(held.isValid()).isTrue();
    }

    // Released: the next tick makes a report again, under a newer lease.
    await().atMost(Duration.ofSeconds(20)).until(() -> job.runs() > runsWhileHeld);
    assertThat(job.latest().orElseThrow().fencingToken()).isGreaterThan(report.fencingToken());
  }

  private List<Sent> sendTransfers(Random random, CountDownLatch start) throws Exception {
    start.await();
    List<Sent> sent = new ArrayList<>();
    for (int i = 0; i < TRANSFERS_PER_THREAD; i++) {
      List<String> pair = new ArrayList<>(ACCOUNTS);
      Collections.shuffle(pair, random);
      String from = pair.get(0);
      String to = pair.get(1);
      long cents = 1 + random.nextInt(3_000);
      HttpRequest request =
          HttpRequest.newBuilder(
                  URI.create(
                      "http://127.0.0.1:%d/accounts/%s/transfer?to=%s&cents=%d"
                          .formatted(port, from, to, cents)))
              .POST(HttpRequest.BodyPublishers.noBody())
              .timeout(Duration.ofSeconds(30))
              .build();
      int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
      sent.add(new Sent(from, to, cents, status));
    }
    return sent;
  }

  private Map<String, Long> balances() {
    Map<String, Long> balances = new HashMap<>();
    jdbc.query(
        "select id, balance_cents from account",
        row -> {
          balances.put(row.getString(1), row.getLong(2));
        });
    return balances;
  }

  private static Path freshLockDirectory() {
    try {
      Path target = Files.createDirectories(Path.of("target"));
      return Files.createTempDirectory(target, "smoke-locks-").toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One transfer request and the HTTP status it got. */
  record Sent(String from, String to, long cents, int status) {}

  @TestConfiguration
  static class Listening {
    @Bean
    LockEvents lockEvents() {
      return new LockEvents();
    }
  }

  /** Counts lock events by lock name. */
  static final class LockEvents implements LockListener {
    private final Map<String, AtomicInteger> acquired = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> busy = new ConcurrentHashMap<>();

    @Override
    public void acquired(LockEvent event, Duration waited) {
      acquired.computeIfAbsent(event.name(), n -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public void busy(LockEvent event) {
      busy.computeIfAbsent(event.name(), n -> new AtomicInteger()).incrementAndGet();
    }

    int acquired(String name) {
      return acquired.getOrDefault(name, new AtomicInteger()).get();
    }

    int busy(String name) {
      return busy.getOrDefault(name, new AtomicInteger()).get();
    }
  }
}
