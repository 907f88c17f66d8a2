package dev.locksmith.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LeaseGrant;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.testkit.ChildJvm;
import dev.locksmith.testkit.LoopbackPorts;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class StatusAndServerCommandTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int execute(String... args) {
    CommandLine line = Main.commandLine();
    line.setOut(new PrintWriter(out, true));
    line.setErr(new PrintWriter(err, true));
    return line.execute(args);
  }

  @Test
  void statusListsHeldLocksWithTokenAndHolder() {
    try (LockProvider provider = LockProviders.create("mem:status-test")) {
      LeaseGrant held =
          provider.tryAcquire(LockRequest.of("reports:2026", Duration.ofSeconds(30))).orElseThrow();
      assertThat(execute("status", "--url", "mem:status-test")).isZero();
      assertThat(out.toString())
          .contains("reports:2026")
          .contains(Long.toString(held.fencingToken()));
      out.reset();
      assertThat(execute("status", "--url", "mem:status-test", "--key", "other")).isZero();
      assertThat(out.toString()).contains("other").contains("(free)");
    }
  }

  @Test
  void serverSubcommandServesClientsAndStopsOnSigterm(@TempDir Path dir) throws Exception {
    int[] ports = LoopbackPorts.free(2);
    int port = ports[0];
    int metricsPort = ports[1];
    Path log = dir.resolve("server.log");
    try (ChildJvm server =
        ChildJvm.builder(Main.class)
            .args(
                "server",
                "--port",
                Integer.toString(port),
                "--data-dir",
                dir.resolve("data").toString(),
                "--metrics-port",
                Integer.toString(metricsPort),
                "--auth-timeout",
                "5s",
                "--line-timeout",
                "5s",
                "--max-connections-per-address",
                "50",
                "--max-unauthenticated",
                "20",
                "--max-unauthenticated-per-address",
                "10",
                "--max-locks-per-connection",
                "100",
                "--max-detached-leases",
                "100",
                "--max-restart-wait",
                "30s")
            .output(log)
            .start()) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> Files.readString(log).contains("listening on 127.0.0.1:" + port));
      String url = "tcp://127.0.0.1:" + port;
      try (LockProvider client = LockProviders.create(url)) {
        client.tryAcquire(LockRequest.of("deploy", Duration.ofSeconds(30))).orElseThrow();
        assertThat(execute("status", "--url", url, "--key", "deploy")).isZero();
        assertThat(out.toString()).contains("deploy").doesNotContain("(free)");
        out.reset();
        assertThat(execute("status", "--url", url)).isZero();
        assertThat(out.toString())
            .contains("Lock server tcp://127.0.0.1:" + port)
            .contains("1 held");
        assertThat(metrics(metricsPort)).contains("locksmith_server_locks_held 1");
      }
      server.terminate();
      assertThat(server.process().waitFor(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static String metrics(int port) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  @ParameterizedTest
  @ValueSource(strings = {"run", "status", "server", "prune", "demo"})
  void everySubcommandPrintsTheVersionItsHelpOffers(String subcommand) {
    String version = String.join("\n", Main.commandLine().getCommandSpec().version());
    assertThat(version).startsWith("locksmith ");
    assertThat(execute(subcommand, "-V")).isZero();
    assertThat(out.toString().strip()).isEqualTo(version);
  }

  @Test
  void serverRejectsALimitOutOfRangeAsUsage() {
    assertThat(execute("server", "--port", "0", "--max-detached-leases", "0")).isEqualTo(64);
    assertThat(err.toString()).contains("--max-detached-leases must be positive, was 0");
  }

  @Test
  void serverNamesTheOptionAndTheValueAsGivenForABadDuration() {
    assertThat(execute("server", "--port", "0", "--idle-timeout", "0s")).isEqualTo(64);
    assertThat(err.toString())
        .contains("--idle-timeout must be positive, was 0s")
        .doesNotContain("idleTimeout")
        .doesNotContain("PT0S");
  }

  @Test
  void serverRefusesAMetricsBindWithoutAMetricsPort() {
    assertThat(execute("server", "--port", "0", "--metrics-bind", "0.0.0.0")).isEqualTo(64);
    assertThat(err.toString()).contains("--metrics-bind 0.0.0.0 needs --metrics-port");
  }

  @Test
  @Timeout(30) // a server that starts after all would serve until stopped
  void serverNamesTheOptionThatKeptItFromStarting(@TempDir Path dir) throws Exception {
    try (var taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      assertThat(execute("server", "--port", "0", "--metrics-port", String.valueOf(port)))
          .isEqualTo(69);
      assertThat(err.toString())
          .contains("is another process using this --metrics-port?")
          .doesNotContain("--data-dir");
      err.reset();
      assertThat(execute("server", "--port", String.valueOf(port))).isEqualTo(69);
      assertThat(err.toString()).contains("is another process using this --port?");
    }
    err.reset();
    Path file = Files.writeString(dir.resolve("file"), "");
    assertThat(execute("server", "--port", "0", "--data-dir", file.resolve("sub").toString()))
        .isEqualTo(69);
    assertThat(err.toString()).contains("check --data-dir " + file.resolve("sub"));
  }

  @Test
  void serverRejectsHalfATlsConfiguration() {
    assertThat(execute("server", "--port", "0", "--tls-cert", "/nonexistent.pem")).isEqualTo(64);
    assertThat(err.toString()).contains("--tls-cert and --tls-key must be given together");
  }
}
