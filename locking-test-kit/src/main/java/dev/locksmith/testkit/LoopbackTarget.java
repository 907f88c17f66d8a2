package dev.locksmith.testkit;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Resolves the server a {@link FaultProxy} forwards to, which must be on loopback: every address
 * the host names must be a loopback address, and an IPv4 one is preferred.
 */
final class LoopbackTarget {
  private LoopbackTarget() {}

  /**
   * The address of {@code host}:{@code port}.
   *
   * @throws IllegalArgumentException if the host is blank or not on loopback, or the port is out of
   *     range
   * @throws java.net.UnknownHostException if {@code host} does not resolve
   */
  static InetSocketAddress resolve(String host, int port) throws IOException {
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException("target port out of range: " + port);
    }
    return new InetSocketAddress(loopbackAddressOf(host), port);
  }

  private static InetAddress loopbackAddressOf(String host) throws IOException {
    if (host.isBlank()) {
      throw new IllegalArgumentException("target host is blank");
    }
    InetAddress[] addresses = InetAddress.getAllByName(host);
    for (InetAddress address : addresses) {
      if (!address.isLoopbackAddress()) {
        throw new IllegalArgumentException(
            "FaultProxy forwards to loopback only, but " + host + " is " + address);
      }
    }
    for (InetAddress address : addresses) {
      if (address instanceof Inet4Address) {
        return address;
      }
    }
    return addresses[0];
  }
}
