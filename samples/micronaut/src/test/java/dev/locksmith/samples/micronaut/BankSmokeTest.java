package dev.locksmith.samples.micronaut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.Locksmith;
import dev.locksmith.tcp.server.LockServer;
import io.micronaut.core.type.Argument;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.client.BlockingHttpClient;
import io.micronaut.http.client.HttpClient;
import io.micronaut.http.client.annotation.Client;
import io.micronaut.http.client.exceptions.HttpClientResponseException;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The sample as it runs: the embedded Netty server, the HTTP client, and Locksmith's TCP lock
 * server in-process as the provider.
 */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BankSmokeTest implements TestPropertyProvider {
  private static final List<String> ACCOUNTS = List.of("alice", "bob", "carol", "dave");
  private static final int CLIENTS = 6;
  private static final int TRANSFERS_PER_CLIENT = 30;

  private LockServer server;

  @Inject
  @Client("/")
  HttpClient http;

  @Inject StatementJob statements;
  @Inject LockEvents events;
  @Inject Locksmith locksmith;

  @Override
  public Map<String, String> getProperties() {
    server = LockServer.builder().port(0).build();
    try {
      return Map.of(
          "locksmith.url", "tcp://127.0.0.1:" + server.start(),
          "bank.transfer.work", "2ms",
          "bank.statement.interval", "200ms",
          "bank.statement.initial-delay", "0s");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @AfterAll
  void stopLockServer() {
    server.close();
  }

  @Test
  void concurrentTransfersKeepEveryCentAndTakeBothAccountLocks() throws Exception {
    BlockingHttpClient client = http.toBlocking();
    Map<String, Long> before = balances(client);
    int acquiredBefore = events.acquired("account");

    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    List<Future<List<Receipt>>> results = new ArrayList<>();
    try {
      for (int c = 0; c < CLIENTS; c++) {
        Random random = new Random(c);
        Callable<List<Receipt>> transfers =
            () -> {
              List<Receipt> receipts = new ArrayList<>();
              for (int i = 0; i < TRANSFERS_PER_CLIENT; i++) {
                int from = random.nextInt(ACCOUNTS.size());
                int to = (from + 1 + random.nextInt(ACCOUNTS.size() - 1)) % ACCOUNTS.size();
                TransferRequest request =
                    new TransferRequest(
                        ACCOUNTS.get(from), ACCOUNTS.get(to), 1 + random.nextInt(500));
                receipts.add(
                    client.retrieve(HttpRequest.POST("/transfers", request), Receipt.class));
              }
              return receipts;
            };
        results.add(pool.submit(transfers));
      }
      Map<String, Long> expected = new HashMap<>(before);
      for (Future<List<Receipt>> result : results) {
        for (Receipt receipt : result.get(60, TimeUnit.SECONDS)) {
          expected.merge(receipt.from(), -receipt.cents(), Long::sum);
          expected.merge(receipt.to(), receipt.cents(), Long::sum);
        }
      }

      Map<String, Long> after = balances(client);
      // No update was lost: every account moved by exactly its receipts, and the total is kept.
      assertThat(after).isEqualTo(expected);
      assertThat(after.values().stream().mapToLong(Long::longValue).sum())
          .isEqualTo(before.values().stream().mapToLong(Long::longValue).sum());
      // Each transfer took the lock of both its accounts.
      assertThat(events.acquired("account") - acquiredBefore)
          .isEqualTo(2 * CLIENTS * TRANSFERS_PER_CLIENT);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void badTransfersAreRefusedAndMoveNothing() {
    BlockingHttpClient client = http.toBlocking();
    Map<String, Long> before = balances(client);

    assertRefused(client, new TransferRequest("alice", "bob", 10_000_000), HttpStatus.CONFLICT);
    assertRefused(client, new TransferRequest("alice", "mallory", 1), HttpStatus.BAD_REQUEST);

    assertThat(balances(client)).isEqualTo(before);
  }

  @Test
  void theScheduledStatementRunsAndSkipsItsTicksWhileAnotherInstanceHoldsTheLock() {
    await().atMost(Duration.ofSeconds(20)).until(() -> statements.runs() >= 2);

    // What another instance does when it runs the statement first: hold the lock "statement".
    int runsWhileHeld;
    try (Lease held = locksmith.acquire(LockOptions.named("statement"))) {
      runsWhileHeld = statements.runs();
      int busy = events.busy("statement");
      await().atMost(Duration.ofSeconds(20)).until(() -> events.busy("statement") >= busy + 2);
      assertThat(statements.runs())
          .as("ticks while held elsewhere are skipped")
          .isEqualTo(runsWhileHeld);
    }

    await().atMost(Duration.ofSeconds(20)).until(() -> statements.runs() > runsWhileHeld);
  }

  private static void assertRefused(
      BlockingHttpClient client, TransferRequest transfer, HttpStatus status) {
    assertThatThrownBy(
            () -> client.exchange(HttpRequest.POST("/transfers", transfer), Receipt.class))
        .isInstanceOfSatisfying(
            HttpClientResponseException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(status.getCode()));
  }

  private static Map<String, Long> balances(BlockingHttpClient client) {
    return client.retrieve(HttpRequest.GET("/accounts"), Argument.mapOf(String.class, Long.class));
  }
}
