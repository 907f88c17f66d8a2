package dev.locksmith.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A dedicated server starts on a loopback port, keeps it across a restart, and loses its data. */
class RedisServerProcessTest {

  @Test
  void dedicatedServerAnswersOnLoopbackAndRestartsOnTheSamePortWithoutItsData() throws IOException {
    try (RedisServerProcess server = TestRedis.startDedicated()) {
      URI url = URI.create(server.url());
      assertThat(url.getHost()).isEqualTo("127.0.0.1");
      assertThat(url.getPort()).isEqualTo(server.port());
      assertThat(server.call("PING")).isEqualTo("PONG");
      assertThat(server.call("SET", "mark", "1")).isEqualTo("OK");

      server.restart();

      assertThat(server.isRunning()).isTrue();
      assertThat(server.port()).isEqualTo(url.getPort());
      assertThat(server.call("GET", "mark")).as("no persistence: the data is gone").isNull();
      server.stop();
      assertThat(server.isRunning()).isFalse();
    }
  }

  /**
   * Another process that took the port while the server was down answers PING too; a restart must
   * not take it for the server (whose own start then fails to bind) and report it ready.
   */
  @Test
  void aRestartDoesNotTakeAnotherServerOnItsPortForItself() throws Exception {
    try (RedisServerProcess server = TestRedis.startDedicated()) {
      server.stop();
      try (ServerSocket squatter =
          new ServerSocket(server.port(), 50, InetAddress.getLoopbackAddress())) {
        Thread answering =
            new Thread(
                () -> {
                  while (!squatter.isClosed()) {
                    try (Socket client = squatter.accept()) {
                      client.getInputStream().read(new byte[256]);
                      client.getOutputStream().write("+PONG\r\n".getBytes(StandardCharsets.UTF_8));
                    } catch (IOException closed) {
                      // the next connection, or the squatter closed
                    }
                  }
                },
                "squatter");
        answering.setDaemon(true);
        answering.start();

        assertThatThrownBy(server::restart)
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("redis-server");
        assertThat(server.isRunning()).isFalse();
      }
    }
  }

  @Test
  void sharedUrlIsTheSameServerForTheWholeJvm() throws IOException {
    String first = TestRedis.sharedUrl();
    assertThat(TestRedis.sharedUrl()).isEqualTo(first);
    URI url = URI.create(first);
    assertThat(
            RespClient.call(url.getHost(), url.getPort(), java.time.Duration.ofSeconds(5), "PING"))
        .isEqualTo("PONG");
  }
}
