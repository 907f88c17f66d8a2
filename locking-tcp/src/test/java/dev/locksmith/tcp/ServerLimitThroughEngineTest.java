package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.Lease;
import dev.locksmith.core.LockException;
import dev.locksmith.core.LockOptions;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.Locksmith;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.LockServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server limit reached by one request ({@code ERR LIMIT}: locks per connection here, or {@code
 * ERR LINE_TOO_LONG}) refuses that request only: the server answered, so the engine does not count
 * it as an outage, the connection and its leases stay, and calls on other locks go on.
 */
class ServerLimitThroughEngineTest {
  private static final int LINE_LIMIT = 400;

  private LockServer server;
  private LockProvider provider;
  private Locksmith locksmith;

  @BeforeEach
  void start() throws Exception {
    server =
        LockServer.builder()
            .port(0)
            .maxLocksPerConnection(2)
            .maxLineLength(LINE_LIMIT)
            .maxKeyBytes(LINE_LIMIT / 4)
            .build();
    int port = server.start();
    provider = LockProviders.create("tcp://127.0.0.1:" + port);
    locksmith = Locksmith.builder().defaultProvider(provider).build();
  }

  @AfterEach
  void stop() {
    locksmith.close();
    provider.close();
    server.close();
  }

  @Test
  void aRequestOverALimitIsRefusedWithoutTakingTheProviderDown() {
    Lease first = locksmith.acquire(LockOptions.named("limit-1"));
    Lease second = locksmith.acquire(LockOptions.named("limit-2"));

    assertThatThrownBy(() -> locksmith.tryAcquire(LockOptions.named("limit-3")))
        .isInstanceOf(LockException.class)
        .isNotInstanceOf(LockProviderException.class)
        .hasMessageContaining("refused")
        .hasMessageContaining("LIMIT");
    assertThat(locksmith.health()).allMatch(health -> health.up());

    first.close();
    try (Lease third = locksmith.tryAcquire(LockOptions.named("limit-3")).orElseThrow()) {
      assertThat(third.isValid()).isTrue();
    }
    second.close();
  }

  @Test
  void aRequestLineOverTheServersLimitIsRefusedAloneAndTheConnectionKept() {
    try (Lease held = locksmith.acquire(LockOptions.named("line-1"))) {
      String longId = "line-" + "x".repeat(LINE_LIMIT);

      assertThatThrownBy(() -> locksmith.tryAcquire(LockOptions.named(longId)))
          .isInstanceOf(LockException.class)
          .isNotInstanceOf(LockProviderException.class)
          .hasMessageContaining("LINE_TOO_LONG");
      assertThat(locksmith.health()).allMatch(health -> health.up());
      assertThat(held.isValid()).isTrue();
      assertThat(provider.status("line-1").currentHolder().orElseThrow().fencingToken())
          .as("the lease is still held: its connection was kept")
          .isEqualTo(held.fencingToken());
    }
  }

  @Test
  void manyRequestsOverALimitInARowAreNotTakenForABadClient() {
    // Lock ids from user input, say: each refusal is the request's alone, however many come in a
    // row. The server closes a connection after maxErrors bad lines (10), which would end every
    // lease the provider's one connection carries.
    try (Lease held = locksmith.acquire(LockOptions.named("row-1"))) {
      for (int i = 0; i < 12; i++) {
        String tooLong = "row-" + i + "-" + "x".repeat(LINE_LIMIT);
        assertThatThrownBy(() -> locksmith.tryAcquire(LockOptions.named(tooLong)))
            .hasMessageContaining("LINE_TOO_LONG");
        String overTheKeyLimit = "row-" + i + "-" + "y".repeat(LINE_LIMIT / 2 - 100);
        assertThatThrownBy(
                () -> provider.tryAcquire(LockRequest.of(overTheKeyLimit, Duration.ofSeconds(30))))
            .hasMessageContaining("LIMIT");
      }
      assertThat(held.isValid()).isTrue();
      assertThat(provider.status("row-1").currentHolder().orElseThrow().fencingToken())
          .as("the lease is still held: its connection was kept")
          .isEqualTo(held.fencingToken());
    }
  }
}
