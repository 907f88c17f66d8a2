package dev.locksmith.samples.springboot;

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
    Map<String, Long> balances = new HashMap<>();
    jdbc.query(
        "select id, balance_cents from account",
        row -> {
          balances.put(row.getString(1), row.getLong(2));
        });
    return balances;
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
