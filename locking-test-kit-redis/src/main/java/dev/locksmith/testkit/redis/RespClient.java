package dev.locksmith.testkit.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A minimal RESP2 client for tests: one connection per call, enough to check readiness and to look
 * at or prepare a server's keys without a client library.
 */
public final class RespClient {
  private RespClient() {}

  /**
   * Sends one command and returns its reply: a {@code String} for simple and bulk strings, a {@code
   * Long} for integers, a {@code List} for arrays and {@code null} for nil.
   *
   * @param host the server's host
   * @param port the server's port
   * @param timeout the bound of connecting and reading
   * @param command the command and its arguments
   * @return the reply
   * @throws RespError when the server answers with an error
   * @throws IOException when the server cannot be reached or the reply is malformed
   */
  public static @Nullable Object call(String host, int port, Duration timeout, String... command)
      throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
      socket.setSoTimeout((int) timeout.toMillis());
      OutputStream out = socket.getOutputStream();
      out.write(encode(command));
      out.flush();
      return read(new BufferedInputStream(socket.getInputStream()));
    }
  }

  private static byte[] encode(String... command) {
    StringBuilder text = new StringBuilder("*").append(command.length).append("\r\n");
    for (String part : command) {
      byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
      text.append('$').append(bytes.length).append("\r\n").append(part).append("\r\n");
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static @Nullable Object read(InputStream in) throws IOException {
    int type = in.read();
    String line = readLine(in);
    switch (type) {
      case '+':
        return line;
      case '-':
        throw new RespError(line);
      case ':':
        return Long.parseLong(line);
      case '$':
        {
          int length = Integer.parseInt(line);
          if (length < 0) {
            return null;
          }
          byte[] bytes = in.readNBytes(length + 2);
          if (bytes.length != length + 2) {
            throw new IOException("RESP bulk string cut short");
          }
          return new String(bytes, 0, length, StandardCharsets.UTF_8);
        }
      case '*':
        {
          int count = Integer.parseInt(line);
          if (count < 0) {
            return null;
          }
          List<@Nullable Object> items = new ArrayList<>(count);
          for (int i = 0; i < count; i++) {
            items.add(read(in));
          }
          return items;
        }
      case -1:
        throw new IOException("connection closed before a reply");
      default:
        throw new IOException("unexpected RESP type byte " + type + " before '" + line + "'");
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int previous = -1;
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed inside a reply");
      }
      if (previous == '\r' && b == '\n') {
        byte[] bytes = line.toByteArray();
        return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
      }
      line.write(b);
      previous = b;
    }
  }

  /** An error reply from the server, such as {@code ERR unknown command}. */
  public static final class RespError extends IOException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error with the server's message.
     *
     * @param message the error reply
     */
    public RespError(String message) {
      super(message);
    }
  }
}
