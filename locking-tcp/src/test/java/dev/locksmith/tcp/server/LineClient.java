package dev.locksmith.tcp.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/** A raw protocol client over a plain socket, as a bash script with /dev/tcp would talk. */
final class LineClient implements AutoCloseable {
  private final Socket socket;
  private final BufferedReader in;
  private final OutputStream out;

  LineClient(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(5000);
    socket.setTcpNoDelay(true);
    in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
    out = socket.getOutputStream();
  }

  void send(String line) throws IOException {
    out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  void sendBytes(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** The next line; fails the test after 5 s of silence; null at end of stream. */
  @Nullable String read() throws IOException {
    return in.readLine();
  }

  /** Sends a line and reads the next reply. */
  @Nullable String call(String line) throws IOException {
    send(line);
    return read();
  }

  /** Whether nothing arrives within {@code millis}. */
  boolean silentFor(int millis) throws IOException {
    socket.setSoTimeout(millis);
    try {
      in.readLine();
      return false;
    } catch (SocketTimeoutException e) {
      return true;
    } finally {
      socket.setSoTimeout(5000);
    }
  }

  /** Reads until the server closes the connection; returns the last line seen. */
  @Nullable String readUntilClosed() throws IOException {
    String last = null;
    try {
      String line;
      while ((line = in.readLine()) != null) {
        last = line;
      }
    } catch (IOException e) {
      // a reset also means closed
    }
    return last;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
