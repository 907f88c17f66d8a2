package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.tcp.server.RunningServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** STATS over the protocol, the Prometheus endpoint, and the client's summary of them. */
class MetricsTest {
  private static final Duration TTL = Duration.ofSeconds(30);

  @Test
  void statsAndThePrometheusEndpointCountWhatHappened() throws Exception {
    try (LockServer server = RunningServer.start(b -> b.secret("s3cret").metricsPort(0))) {
      int port = server.port();
      String url = "tcp://127.0.0.1:" + port + "?secret=s3cret";
      try (LockProvider a = LockProviders.create(url);
          LockProvider b = LockProviders.create(url);
          Socket silent = new Socket("127.0.0.1", port)) {
        LeaseGrant held = a.tryAcquire(LockRequest.of("m", TTL)).orElseThrow();
        CompletableFuture<Optional<LeaseGrant>> waiting =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return b.acquire(LockRequest.of("m", TTL), Duration.ofSeconds(10));
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                  }
                });
        await().until(() -> a.status("m").waiters() == 1);
        TcpServerStats during = TcpServerStats.fetch(a).orElseThrow();
        assertThat(during.connections()).isEqualTo(2);
        assertThat(during.unauthenticatedConnections()).isEqualTo(1);
        assertThat(during.heldLocks()).isEqualTo(1);
        assertThat(during.waiters()).isEqualTo(1);
        assertThat(during.handoffP50()).isEmpty();
        assertThat(a.release(held)).isTrue();
        LeaseGrant next = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(b.release(next)).isTrue();
        assertThat(wrongSecret(port)).startsWith("1 ERR AUTH wrong secret");

        await()
            .until(() -> TcpServerStats.fetch(a).orElseThrow().unauthenticatedConnections() == 1);
        TcpServerStats after = TcpServerStats.fetch(a).orElseThrow();
        assertThat(after.grants()).isEqualTo(2);
        assertThat(after.releases()).isEqualTo(2);
        assertThat(after.heldLocks()).isZero();
        assertThat(after.waiters()).isZero();
        assertThat(after.refusedAuths()).isEqualTo(1);
        assertThat(after.handoffP99()).isPresent();
        assertThat(after.handoffP99().get()).isLessThan(Duration.ofSeconds(1));
        assertThat(after.summary())
            .contains("2 authenticated, 1 not yet")
            .contains("2 grants, 2 releases")
            .contains("1 wrong secrets")
            .contains("1 hand-offs, p50 <= ");
        assertThat(after.summary().lines().count()).isLessThanOrEqualTo(24);

        HttpResponse<String> metrics = get(server.metricsPort(), "/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("Content-Type"))
            .hasValueSatisfying(type -> assertThat(type).startsWith("text/plain; version=0.0.4"));
        assertThat(metrics.body())
            .contains("locksmith_server_connections{state=\"authenticated\"} 2\n")
            .contains("locksmith_server_connections{state=\"unauthenticated\"} 1\n")
            .contains("locksmith_server_locks_held 0\n")
            .contains("locksmith_server_waiters 0\n")
            .contains("locksmith_server_restart_wait_seconds 0\n")
            .contains("locksmith_server_grants_total 2\n")
            .contains("locksmith_server_releases_total{cause=\"request\"} 2\n")
            .contains("locksmith_server_expiries_total 0\n")
            .contains("locksmith_server_auth_refused_total 1\n")
            .contains("# TYPE locksmith_server_handoff_seconds histogram\n")
            .contains("locksmith_server_handoff_seconds_bucket{le=\"+Inf\"} 1\n")
            .contains("locksmith_server_handoff_seconds_count 1\n");
        assertThat(get(server.metricsPort(), "/other").statusCode()).isEqualTo(404);
      }
    }
  }

  /**
   * Scrapers that stall (a request sent in part, a connection that sends nothing) do not keep the
   * endpoint from answering others, and a request that never ends is cut.
   */
  @Test
  void stalledScrapersDoNotFreezeTheEndpoint() throws Exception {
    try (LockServer server = RunningServer.start(b -> b.metricsPort(0));
        Socket partial = new Socket("127.0.0.1", server.metricsPort());
        Socket silent = new Socket("127.0.0.1", server.metricsPort())) {
      partial.getOutputStream().write("GET /metr".getBytes(StandardCharsets.US_ASCII));
      partial.getOutputStream().flush();
      for (int i = 0; i < 3; i++) {
        assertThat(get(server.metricsPort(), "/metrics").statusCode()).isEqualTo(200);
      }
      partial.setSoTimeout(30_000);
      assertThat(partial.getInputStream().read())
          .as("a request that never ends is answered or closed, not kept for good")
          .isNotZero();
    }
  }

  @Test
  void theEndpointIsOffByDefaultAndStatsIsNotForAnotherProvider() throws Exception {
    try (LockServer server = RunningServer.start()) {
      assertThat(server.metricsPort()).isEqualTo(-1);
    }
    try (LockProvider memory = LockProviders.create("mem:")) {
      assertThat(TcpServerStats.fetch(memory)).isEmpty();
    }
  }

  private static String wrongSecret(int port) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write("1 AUTH nope\n".getBytes(StandardCharsets.UTF_8));
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      assertThat(in.readLine()).startsWith("* DELAYED 1 ");
      return in.readLine();
    }
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
