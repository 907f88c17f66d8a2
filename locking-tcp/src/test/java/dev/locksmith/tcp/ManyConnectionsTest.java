package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import dev.locksmith.core.spi.LockRequest;
import dev.locksmith.tcp.server.LockServer;
import dev.locksmith.tcp.server.RunningServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** 1,000 connections open at once, each holding a lock, while a provider still gets served. */
class ManyConnectionsTest {
  private static final int CONNECTIONS = 1000;

  @Test
  void thousandConcurrentConnectionsEachHoldALock() throws Exception {
    try (LockServer server = RunningServer.start()) {
      int port = server.port();
      List<Socket> sockets = new ArrayList<>();
      try {
        for (int i = 0; i < CONNECTIONS; i++) {
          Socket socket = new Socket("127.0.0.1", port);
          socket.setSoTimeout(10_000);
          sockets.add(socket);
          socket
              .getOutputStream()
              .write(
                  ("a ACQUIRE conn-" + i + " 60000 0 t" + i + "\n")
                      .getBytes(StandardCharsets.UTF_8));
        }
        for (int i = 0; i < CONNECTIONS; i++) {
          var in =
              new BufferedReader(
                  new InputStreamReader(sockets.get(i).getInputStream(), StandardCharsets.UTF_8));
          assertThat(in.readLine()).startsWith("a OK t" + i + " ");
        }
        try (LockProvider provider = LockProviders.create("tcp://127.0.0.1:" + port)) {
          assertThat(provider.status("conn-0").currentHolder()).isPresent();
          assertThat(provider.status("conn-999").currentHolder()).isPresent();
          assertThat(provider.tryAcquire(LockRequest.of("conn-500", Duration.ofSeconds(5))))
              .isEmpty();
          for (Socket socket : sockets) {
            socket.close();
          }
          await()
              .atMost(Duration.ofSeconds(10))
              .until(() -> provider.status("conn-999").currentHolder().isEmpty());
          assertThat(provider.tryAcquire(LockRequest.of("conn-500", Duration.ofSeconds(5))))
              .isPresent();
        }
      } finally {
        for (Socket socket : sockets) {
          socket.close();
        }
      }
    }
  }
}
