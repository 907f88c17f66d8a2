package dev.locksmith.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
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
