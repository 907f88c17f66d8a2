package dev.locksmith.samples.springboot;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Transfers between alice, bob and carol over the HTTP API, from several threads released at once,
 * and the balances they imply.
 */
final class TransferLoad {
  static final List<String> ACCOUNTS = List.of("alice", "bob", "carol");
  static final long INITIAL_CENTS = 10_000;

  private final HttpClient http = HttpClient.newHttpClient();
  private final int port;

  TransferLoad(int port) {
    this.port = port;
  }

  /**
   * Sends {@code perThread} random transfers from each of {@code threads} threads, all started
   * together; waits at most a minute for each thread.
   */
  List<Sent> send(int threads, int perThread) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<List<Sent>>> running = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Sent> sent = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        Random random = new Random(t);
        running.add(pool.submit(() -> sendTransfers(random, start, perThread)));
      }
      start.countDown();
      for (Future<List<Sent>> thread : running) {
        sent.addAll(thread.get(60, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    return sent;
  }

  /** The balances after {@code sent}: the initial ones plus what every 200 answer moved. */
  static Map<String, Long> expectedBalances(List<Sent> sent) {
    Map<String, Long> expected = new HashMap<>();
    ACCOUNTS.forEach(a -> expected.put(a, INITIAL_CENTS));
    for (Sent s : sent) {
      if (s.status() == 200) {
        expected.merge(s.from(), -s.cents(), Long::sum);
        expected.merge(s.to(), s.cents(), Long::sum);
      }
    }
    return expected;
  }

  /** Every account's balance, read through the application's {@code JdbcTemplate}. */
  static Map<String, Long> balances(JdbcTemplate jdbc) {
    return numbersById(jdbc, "select id, balance_cents from account");
  }

  /** The rows of a query of an id and a number, as a map from id to number. */
  static Map<String, Long> numbersById(JdbcTemplate jdbc, String sql, Object... args) {
    Map<String, Long> numbers = new HashMap<>();
    jdbc.query(
        sql,
        row -> {
          numbers.put(row.getString(1), row.getLong(2));
        },
        args);
    return numbers;
  }

  /**
   * Sends {@code perThread} transfers from each of {@code threads} threads and checks the outcome
   * every bank keeps whatever its lock store: each request moved the money or was refused for want
   * of it (200 or 409, more than one move per thread), every balance is exact and none negative,
   * and each request took both account locks in one call (one grant, with its own event, per key).
   *
   * @return the transfers sent, for the caller's further checks
   */
  List<Sent> sendAndCheckBalances(JdbcTemplate jdbc, LockEvents events, int threads, int perThread)
      throws Exception {
    int accountLocksBefore = events.acquired("account");
    List<Sent> sent = send(threads, perThread);
    assertThat(sent).hasSize(threads * perThread);
    // 200: moved; 409: refused, the account would have gone below zero. Nothing else.
    assertThat(sent).extracting(Sent::status).containsOnly(200, 409);
    assertThat(sent).filteredOn(s -> s.status() == 200).hasSizeGreaterThan(threads);

    Map<String, Long> balances = balances(jdbc);
    // A lost update (two requests reading the same balance) would break this exact match.
    assertThat(balances).isEqualTo(expectedBalances(sent));
    assertThat(balances.values().stream().mapToLong(Long::longValue).sum())
        .isEqualTo(INITIAL_CENTS * ACCOUNTS.size());
    assertThat(balances.values()).allSatisfy(b -> assertThat(b).isNotNegative());
    assertThat(events.acquired("account") - accountLocksBefore).isEqualTo(2 * sent.size());
    return sent;
  }

  private List<Sent> sendTransfers(Random random, CountDownLatch start, int count)
      throws Exception {
    start.await();
    List<Sent> sent = new ArrayList<>();
    for (int i = 0; i < count; i++) {
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

  /** One transfer request and the HTTP status it got. */
  record Sent(String from, String to, long cents, int status) {}
}
