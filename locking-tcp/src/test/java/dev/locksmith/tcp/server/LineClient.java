package dev.locksmith.tcp.server;

import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
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
    this(port, "127.0.0.1");
  }

  /** Connects from {@code localAddress}, another loopback address such as 127.0.0.2 (Linux). */
  LineClient(int port, String localAddress) throws IOException {
    socket = new Socket("127.0.0.1", port, InetAddress.getByName(localAddress), 0);
    socket.setSoTimeout(5000);
    socket.setTcpNoDelay(true);
    in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
    out = socket.getOutputStream();
  }

  /** Sets how long a read may wait (5 s unless set). */
  LineClient readTimeout(int millis) throws IOException {
    socket.setSoTimeout(millis);
    return this;
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

  /**
   * Asks for the state of {@code lock} with request id {@code s}: {@code s FREE <waiters>} or
   * {@code s HELD <fencing-token> <ms-left> <waiters> <owner>}.
   */
  @Nullable String status(String lock) throws IOException {
    return call("s STATUS " + lock);
  }

  /** How many ACQUIREs wait for {@code lock}, as its STATUS reports. */
  int waiters(String lock) throws IOException {
    String[] f = status(lock).split(" ");
    return Integer.parseInt(f[1].equals("FREE") ? f[2] : f[4]);
  }

  /**
   * Sends an ACQUIRE that is to wait and returns once it is queued: when {@code observer} sees
   * {@code waiters} ACQUIREs waiting for its lock.
   */
  void sendQueued(String acquire, LineClient observer, int waiters) throws IOException {
    String lock = acquire.split(" ")[2];
    send(acquire);
    await().until(() -> observer.waiters(lock) == waiters);
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

  /** Shuts down the sending side only (a half-close, as {@code nc -N} does at the end of input). */
  void shutdownOutput() throws IOException {
    socket.shutdownOutput();
  }

  /** Whether the server has closed the connection (reads end of stream within 5 s). */
  boolean closedByServer() throws IOException {
    try {
      return in.read() < 0;
    } catch (IOException e) {
      return true; // a reset also means closed
    }
  }

  /** Closes with a reset (RST) instead of a FIN, as a client that does not wait for answers. */
  void reset() throws IOException {
    socket.setSoLinger(true, 0);
    socket.close();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
