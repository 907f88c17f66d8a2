package dev.locksmith.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {

  @Test
  void portsLieBelowTheRangeTheSystemHandsOutByItself() {
    int ephemeralStart = LoopbackPorts.ephemeralStart();
    assertThat(ephemeralStart).isGreaterThan(11_000);

    int[] ports = LoopbackPorts.free(9);

    assertThat(Arrays.stream(ports).boxed())
        .allSatisfy(port -> assertThat(port).isBetween(10_000, ephemeralStart - 1));
  }

  @Test
  void noPortIsHandedOutTwice() {
    int[] first = LoopbackPorts.free(50);
    int[] second = LoopbackPorts.free(50);

    int[] all = new int[100];
    System.arraycopy(first, 0, all, 0, 50);
    System.arraycopy(second, 0, all, 50, 50);
    assertThat(Arrays.stream(all).distinct().count()).isEqualTo(100);
  }

  @Test
  void aPortHandedOutCanBeBound() throws IOException {
    int port = LoopbackPorts.free();

    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      assertThat(socket.getLocalPort()).isEqualTo(port);
    }
  }

  @Test
  void aPortInUseIsNotHandedOut() throws IOException {
    int[] before = LoopbackPorts.free(1);
    // The next port in the walk, taken by another listener before it is asked for.
    int taken = before[0] + 1;
    try (ServerSocket listener = new ServerSocket()) {
      listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), taken));

      assertThat(LoopbackPorts.free()).isNotEqualTo(taken);
    } catch (IOException portBusyAlready) {
      assertThat(LoopbackPorts.free()).isNotEqualTo(taken);
    }
  }

  @Test
  void aCountBelowOneIsRefused() {
    assertThatThrownBy(() -> LoopbackPorts.free(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1 port, not 0");
  }
}
